package workload

import "sort"

// tornTx finds the MULTI/EXEC transactions (ops sharing Op.Tx) that the
// final read holds in part: EXEC applies all of a transaction's commands
// or none, on the master and, through the replication stream, on its
// replicas, so a torn one is a lost atomicity (violation W2).
func (c *checker) tornTx(final map[string]int) {
	if c.in.Final == nil {
		return
	}
	present := map[string][2]int{} // tx → (ids present, ids)
	for _, op := range c.in.Ops {
		if op.Tx == "" || op.Kind != "" {
			continue
		}
		p := present[op.Tx]
		p[1]++
		if final[op.ID] > 0 {
			p[0]++
		}
		present[op.Tx] = p
	}
	txs := make([]string, 0, len(present))
	for tx := range present {
		txs = append(txs, tx)
	}
	sort.Strings(txs)
	for _, tx := range txs {
		if p := present[tx]; p[0] > 0 && p[0] < p[1] {
			c.r.TornTx++
			c.violate("W2", "transaction %s: %d of its %d writes in the final read", tx, p[0], p[1])
		}
	}
}
