package core

// onReply routes a reply to the callback of the command it answers.
func (s *Sentinel) onReply(e Reply) {
	p, ok := s.pending[e.Tag]
	if !ok || p.conn != e.Conn || p.link.id != e.Link {
		return
	}
	s.delPending(e.Tag)
	l := p.link
	if p.counted && p.conn == l.cc && l.pending > 0 {
		l.pending--
	}
	if p.conn == l.pc {
		l.pcLastActivity = s.now
	}
	s.cancelPending(p)
	i := p.inst
	if i.released {
		return
	}
	switch p.kind {
	case SendPing:
		s.onPingReply(i, e.Value)
	case SendInfo:
		if e.Value.Kind == KindBulk {
			s.refreshInfo(i, e.Value.Str)
			if !i.released {
				s.reactToInfo(i)
			}
		}
	case SendHello:
		if e.Value.Kind != KindError {
			i.lastPubTime = s.now
		}
	case SendAskMasterDown:
		s.onIsMasterDownReply(i, e.Value)
		s.reactToVote(i.master)
		s.reactToMasterDownReply(i.master)
	case SendPeerMaster:
		s.onPeerMasterReply(i, e.Value) // votegate.go
	case SendAuth:
		s.onAuthReply(i, l, e.Value) // authwarn.go
	case SendSubscribe:
		if e.Value.Kind == KindError {
			// hiredis drops the pub/sub connection on a SUBSCRIBE error.
			s.closeConn(l, true)
		}
	}
}

// onMessage handles a pub/sub message (sentinelReceiveHelloMessages).
func (s *Sentinel) onMessage(e Message) {
	l, ok := s.links[e.Link]
	if !ok || e.Conn != l.pc || l.pcState != connUp {
		return
	}
	l.pcLastActivity = s.now
	if e.Channel != HelloChannel {
		return
	}
	s.heardHello(l) // voterfloor.go
	s.processHello(e.Payload, true)
}
