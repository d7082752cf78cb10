package ops

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrNoListener is returned when no local process listens on a port.
var ErrNoListener = errors.New("no local process listens on that port")

// ErrNotLocal is returned when --kill is asked for a master on another host.
var ErrNotLocal = errors.New("address is not on this machine")

// FindListenerPID returns the PID of the local process listening on TCP
// port, found through /proc/net/tcp{,6} (socket inode) and /proc/<pid>/fd.
// Processes of other users whose fds cannot be read are skipped.
func FindListenerPID(port int) (int, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if err := listenInodes(f, port, inodes); err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("find listener on port %d: %w", port, err)
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("port %d: %w", port, ErrNoListener)
	}
	procs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		return 0, fmt.Errorf("find listener on port %d: %w", port, err)
	}
	for _, p := range procs {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(p, "fd"))
		if err != nil {
			continue // gone, or not ours
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(p, "fd", fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("port %d: socket found but no readable owner: %w", port, ErrNoListener)
}

// listenInodes adds the inodes of sockets in LISTEN state on port found in
// a /proc/net/tcp-format file.
func listenInodes(path string, port int, into map[string]bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
		if len(fields) < 10 || fields[3] != "0A" || !strings.HasSuffix(fields[1], want) {
			continue
		}
		into[fields[9]] = true
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// IsLocalHost reports whether host (an IP or "localhost") belongs to this
// machine.
func IsLocalHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if ip.IsLoopback() {
		return true
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}
