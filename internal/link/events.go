package link

import "github.com/gosentinel/gosentinel/internal/resp"

// ConnID names one connection (the core's core.ConnID: the runtime passes
// it through); the caller chooses it in [Manager.Dial] and it
// must be unique among the Manager's live connections.
type ConnID uint64

// Tag matches a [Reply] to its [Manager.Send].
type Tag uint64

// Event is something that happened on a connection.
type Event interface{ linkEvent() }

// Connected reports an established connection. LocalIP is the local
// address of the socket (the IP the core announces in hello messages when
// announce-ip is not set).
type Connected struct {
	Conn    ConnID
	LocalIP string
}

// Closed reports that a connection failed to dial or was lost. Pending
// lists, in send order, the tags of the commands that will never get a
// reply.
type Closed struct {
	Conn    ConnID
	Err     error
	Pending []Tag
}

// Reply is the answer to the Send with the same tag.
type Reply struct {
	ID    ConnID
	Conn  Tag
	Value resp.Value
}

// Message is a pub/sub message received on a pub/sub connection.
type Message struct {
	ID      ConnID
	Conn    string
	Payload string
}

func (Connected) linkEvent() {}
func (Closed) linkEvent()    {}
func (Reply) linkEvent()     {}
func (Message) linkEvent()   {}
