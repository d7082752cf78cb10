package netlab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDNSServer: a running process (glibc's resolver, through getent) asks
// the lab's DNS server once it starts, every answer waits the delay, the
// hosts files no longer list the lab's names, and Close restores them.
func TestDNSServer(t *testing.T) {
	l, hs := newLab(t, "a", "b", "dns")
	a, b := hs[0], hs[1]
	p, err := a.Start(ProcSpec{Name: "sleeper", Argv: []string{"sleep", "3600"}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.StartDNS(hs[2])
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := os.ReadFile(filepath.Join("/etc/netns", a.NS(), "hosts"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(hosts), b.IP()) {
		t.Fatalf("hosts file still lists b while the DNS server runs:\n%s", hosts)
	}
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("b resolves to %q (%v), want %s", ip, err, b.IP())
	}
	if d.Queries() == 0 {
		t.Fatal("the lookup did not reach the DNS server")
	}
	d.SetDelay(700 * time.Millisecond)
	start := time.Now()
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("delayed: b resolves to %q (%v), want %s", ip, err, b.IP())
	}
	if el := time.Since(start); el < 700*time.Millisecond {
		t.Fatalf("a delayed lookup took %v, want >= 700ms", el)
	}
	if d.Delayed() == 0 {
		t.Fatal("no query counted as delayed")
	}
	// A delay for queries from b only: a's lookups are answered at once.
	d.SetDelay(3*time.Second, b)
	start = time.Now()
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("delay for b only: b resolves to %q (%v), want %s", ip, err, b.IP())
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("a's lookup took %v with a delay for b only", el)
	}
	d.SetDelay(0)
	if _, err := getent(t, p.Exec, "nosuchhost"); err == nil {
		t.Fatal("an unknown name resolved")
	}
	if err := l.SetResolvable(b, false); err != nil {
		t.Fatal(err)
	}
	if _, err := getent(t, p.Exec, "b"); err == nil {
		t.Fatal("an unresolvable host resolved through the DNS server")
	}
	if err := l.SetResolvable(b, true); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	n := d.Queries()
	if ip, err := getent(t, p.Exec, "b"); err != nil || ip != b.IP() {
		t.Fatalf("after Close: b resolves to %q (%v), want %s", ip, err, b.IP())
	}
	if d.Queries() != n {
		t.Fatal("a lookup reached the closed DNS server")
	}
}
