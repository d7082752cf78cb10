package runtime

import (
	"strings"
	"testing"

	"github.com/gosentinel/gosentinel/internal/core"
	"github.com/gosentinel/gosentinel/internal/server"
)

// TestSubcommandAritiesAgree: the server rejects a SENTINEL subcommand with
// the wrong number of arguments using its table (a real sentinel's COMMAND
// INFO); the core checks again with its own (it also serves the simulator).
// The two must name the same subcommands with the same arities, or one
// layer would answer what the other refuses.
func TestSubcommandAritiesAgree(t *testing.T) {
	srv, err := server.SubcommandArities("sentinel")
	if err != nil {
		t.Fatal(err)
	}
	cr := core.SentinelSubcommandArities()
	for name, a := range cr {
		full := "sentinel|" + name
		sa, ok := srv[full]
		if !ok {
			sa, ok = srv[name]
		}
		if !ok {
			t.Errorf("core implements SENTINEL %s, the server's command table does not list it", strings.ToUpper(name))
			continue
		}
		if sa != a {
			t.Errorf("SENTINEL %s: core arity %d, server table arity %d", strings.ToUpper(name), a, sa)
		}
	}
	for full := range srv {
		name := strings.TrimPrefix(full, "sentinel|")
		if name == "help" {
			continue // answered by the server from COMMAND DOCS, never reaches the core
		}
		if _, ok := cr[name]; !ok {
			t.Errorf("the server's table lists SENTINEL %s, the core does not implement it", strings.ToUpper(name))
		}
	}
}
