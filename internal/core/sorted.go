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

// sortedCached returns sortedInstances(d), reusing *cache when it still
// holds exactly the instances of d. Every dictionary is keyed by the
// instance's name, so the check is one lookup per instance: no sort and no
// allocation on the timer's hot path, whoever mutated the map and however.
// Callers must not modify the returned slice in place.
func sortedCached(d map[string]*instance, cache *[]*instance) []*instance {
	c := *cache
	if len(c) == len(d) && c != nil {
		valid := true
		for _, x := range c {
			if d[x.name] != x {
				valid = false
				break
			}
		}
		if valid {
			return c
		}
	}
	c = sortedInstances(d)
	*cache = c
	return c
}
