package core

// Replies show only a config epoch that is on disk (docs/core.md decision
// 31; fault lab B3k). A master's config epoch changes in memory when our
// promoted replica reports role:master (+promoted-slave) or when a hello
// carries a newer one, and the Persist that saves it completes later. A
// reply that showed the new epoch in between (SENTINEL MASTER config-epoch)
// was undone by a crash before the save: the restarted sentinel came back
// with the older epoch, so an observer saw this sentinel's config epoch go
// 1 → 0 (invariant S3). sentinel.c saves synchronously (sentinelFlushConfig
// after the change, before the event loop answers anything), so nothing of
// the change is seen before it is on disk. Here replies are not delayed:
// until the Persist covering the change succeeds, they show the config
// epoch and the address that are on disk, as one pair (the address of a
// hello adopted with the epoch, or our promoted replica, comes with it):
//
//   - SENTINEL MASTER / MASTERS: ip, port and config-epoch;
//   - SENTINEL GET-MASTER-ADDR-BY-NAME;
//   - INFO sentinel: the masterN address.
//
// Hellos, IS-MASTER-DOWN-BY-ADDR and the SLAVEOF transactions are held
// until the Persist anyway (persist.go); so are the +config-update-from and
// +switch-master of a switch followed from a hello (hello.go adoptConfig,
// decision 34), which clients act on by asking for the address. Our own
// +switch-master and +promoted-slave leave at once. The accessors for the
// runtime and the simulator (Masters, Master) show the live state.

// shownConfig is a master's config epoch and address as last saved.
type shownConfig struct {
	epoch uint64
	addr  Addr
}

// setConfigEpoch changes m's config epoch, a change of persisted state.
// Until the Persist that covers it succeeds, replies show the pair on
// disk before it (shownMaster); a second change before that keeps the
// pair of the first.
func (s *Sentinel) setConfigEpoch(m *instance, epoch uint64) {
	ms := m.m
	if !s.configUnsaved(m) {
		ms.shown = shownConfig{ms.configEpoch, m.addr}
	}
	ms.configEpoch = epoch
	s.markDirty()
	ms.configSeq = s.persist.needSeq
}

// configUnsaved reports whether m's latest config epoch change is not on
// disk yet.
func (s *Sentinel) configUnsaved(m *instance) bool { return m.m.configSeq > s.persist.doneSeq }

// shownMaster returns the config epoch, the configured address and the
// current address (GET-MASTER-ADDR-BY-NAME: our promoted replica during
// RECONF_SLAVES) that replies show for master m.
func (s *Sentinel) shownMaster(m *instance) (epoch uint64, addr, current Addr) {
	if s.configUnsaved(m) {
		return m.m.shown.epoch, m.m.shown.addr, m.m.shown.addr
	}
	return m.m.configEpoch, m.addr, s.currentMasterAddr(m)
}
