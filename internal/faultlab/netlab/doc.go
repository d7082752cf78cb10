// Package netlab builds the fault lab's "hosts": Linux network namespaces
// joined by a bridge that lives in its own namespace, each with its own
// address (198.18.<N>.<k>/24) and its own /etc/hosts, and runs real processes
// inside them. It injects the faults of the reliability scorecard: nftables
// cuts (one-way, symmetric, per port; drop or reject), isolation, latency and
// bandwidth through a userspace proxy, address changes behind a stable
// hostname, names that stop resolving, read-only config directories and full
// disks. Nothing is added to the root namespace.
//
// Everything needs root; New returns ErrNotRoot otherwise. See
// docs/faultlab.md, section "Hosts and faults".
package netlab
