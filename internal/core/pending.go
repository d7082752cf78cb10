package core

// addPending registers a command awaiting its reply.
func (s *Sentinel) addPending(tag Tag, p *pendingCmd) {
	s.pending[tag] = p
	byConn := s.pendingByConn[p.conn]
	if byConn == nil {
		byConn = map[Tag]struct{}{}
		s.pendingByConn[p.conn] = byConn
	}
	byConn[tag] = struct{}{}
}

// delPending forgets a pending command (answered, cancelled or dropped).
func (s *Sentinel) delPending(tag Tag) {
	p, ok := s.pending[tag]
	if !ok {
		return
	}
	delete(s.pending, tag)
	if byConn := s.pendingByConn[p.conn]; byConn != nil {
		delete(byConn, tag)
		if len(byConn) == 0 {
			delete(s.pendingByConn, p.conn)
		}
	}
}
