package client

// sentinelList is the ordered in-memory list of sentinel addresses. The
// first responder moves to the front (guidelines, step 1); a sentinel that
// failed moves to the back so that black-holed sentinels stop costing a
// timeout on every resolution; sentinels learnt from SENTINEL SENTINELS are
// appended. The caller holds resolver.mu.
type sentinelList []string

func (l sentinelList) index(addr string) int {
	for i, a := range l {
		if a == addr {
			return i
		}
	}
	return -1
}

// toFront moves addr to position 0.
func (l sentinelList) toFront(addr string) {
	i := l.index(addr)
	if i <= 0 {
		return
	}
	copy(l[1:i+1], l[:i])
	l[0] = addr
}

// toBack moves addr to the last position.
func (l sentinelList) toBack(addr string) {
	i := l.index(addr)
	if i < 0 || i == len(l)-1 {
		return
	}
	copy(l[i:], l[i+1:])
	l[len(l)-1] = addr
}

// add appends the addresses not yet present and reports how many were new.
func (l *sentinelList) add(addrs []string) int {
	n := 0
	for _, a := range addrs {
		if l.index(a) < 0 {
			*l = append(*l, a)
			n++
		}
	}
	return n
}
