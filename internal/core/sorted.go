package core

import "sort"

// sortedInstances returns the instances of d sorted by name (the map key).
// The slice has no spare capacity, so a caller's append never writes into
// a cached slice.
func sortedInstances(d map[string]*instance) []*instance {
	out := make([]*instance, 0, len(d))
	for _, x := range d {
		out = append(out, x)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].name < out[b].name })
	return out[:len(out):len(out)]
}

// sortedCache is the sorted view of one dictionary (masters, a master's
// replicas or sentinels) and the dictionary generation it was built at.
type sortedCache struct {
	list []*instance
	gen  uint64
}

// dictChanged must be called after any insertion into or deletion from a
// dictionary of instances (or its replacement): it invalidates every
// sorted view at once. Changes are rare (discovery, reset, switch), ticks
// are not.
func (s *Sentinel) dictChanged() { s.dictGen++ }

// sortedCached returns sortedInstances(d), rebuilt only when a dictionary
// changed since c was built: no sort, no allocation and no map access on
// the timer's hot path. The length check guards against a mutation that
// forgot dictChanged. Callers must not modify the returned slice in place.
func (s *Sentinel) sortedCached(d map[string]*instance, c *sortedCache) []*instance {
	if c.gen == s.dictGen && len(c.list) == len(d) {
		return c.list
	}
	c.list, c.gen = sortedInstances(d), s.dictGen
	return c.list
}
