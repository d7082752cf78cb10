package sim

import "testing"

func TestSchedulerOrdersByTimeThenInsertion(t *testing.T) {
	var s scheduler
	var got []string
	add := func(at int64, name string) { s.at(at, func() { got = append(got, name) }) }
	add(30, "c")
	add(10, "a1")
	add(20, "b")
	add(10, "a2")
	add(10, "a3")
	for {
		fn, ok := s.next(25)
		if !ok {
			break
		}
		fn()
	}
	want := []string{"a1", "a2", "a3", "b"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if s.now != 20 {
		t.Fatalf("clock at %d, want 20", s.now)
	}
	// Scheduling in the past runs at the current time, never earlier.
	s.at(5, func() { got = append(got, "late") })
	fn, ok := s.next(100)
	if !ok {
		t.Fatal("queue empty")
	}
	fn()
	if got[len(got)-1] != "late" || s.now != 20 {
		t.Fatalf("past event ran at %d as %q", s.now, got[len(got)-1])
	}
}
