// Package ops holds the logic behind the sentinelctl operator commands:
// gathering a deployment's topology from its sentinels (status), merging the
// sentinels' event streams into a failover timeline (watch), linting a
// deployment against common production mistakes (check), and running
// controlled failover drills, either against an existing deployment (drill)
// or against a throw-away local one (demo).
//
// Everything here talks to sentinels and Redis nodes through go-redis with
// no retries and short explicit timeouts; the cobra commands in
// cmd/sentinelctl only parse flags and print what this package returns.
package ops
