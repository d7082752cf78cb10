package config

import (
	"strings"
	"testing"
)

// TestOutputLimitAccessor: defaults as Redis, the file's values per class.
func TestOutputLimitAccessor(t *testing.T) {
	c, err := Parse(strings.NewReader("client-output-buffer-limit normal 1mb 512kb 5 pubsub 0 0 0\n"), "t.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Server.OutputLimit("normal"), (OutputLimit{1 << 20, 512 << 10, 5}); got != want {
		t.Errorf("normal = %+v, want %+v", got, want)
	}
	if got := c.Server.OutputLimit("PUBSUB"); got != (OutputLimit{}) {
		t.Errorf("pubsub = %+v, want none", got)
	}
	if got, want := c.Server.OutputLimit("slave"), (OutputLimit{256 << 20, 64 << 20, 60}); got != want {
		t.Errorf("replica = %+v, want the default %+v", got, want)
	}
	d, err := Parse(strings.NewReader(""), "d.conf")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.Server.OutputLimit("pubsub"), (OutputLimit{32 << 20, 8 << 20, 60}); got != want {
		t.Errorf("default pubsub = %+v, want %+v", got, want)
	}
	if got := d.Server.OutputLimit("normal"); got != (OutputLimit{}) {
		t.Errorf("default normal = %+v, want none", got)
	}
}
