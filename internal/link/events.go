package link

import "github.com/gosentinel/gosentinel/internal/resp"

// ID names one connection; the caller chooses it in [Manager.Dial] and it
// must be unique among the Manager's live connections.
type ID uint64

// Tag matches a [Reply] to its [Manager.Send].
type Tag uint64

// Event is something that happened on a connection.
type Event interface{ linkEvent() }

// Connected reports an established connection. LocalIP is the local
// address of the socket (the IP the core announces in hello messages when
// announce-ip is not set).
type Connected struct {
	ID      ID
	LocalIP string
}

// Closed reports that a connection failed to dial or was lost. Pending
// lists, in send order, the tags of the commands that will never get a
// reply.
type Closed struct {
	ID      ID
	Err     error
	Pending []Tag
}

// Reply is the answer to the Send with the same tag.
type Reply struct {
	ID    ID
	Tag   Tag
	Value resp.Value
}

// Message is a pub/sub message received on a pub/sub connection.
type Message struct {
	ID      ID
	Channel string
	Payload string
}

func (Connected) linkEvent() {}
func (Closed) linkEvent()    {}
func (Reply) linkEvent()     {}
func (Message) linkEvent()   {}
