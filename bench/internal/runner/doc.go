// Package runner holds what the bench commands share: flags, resolution of
// the two implementations, run-by-run alternation, collection of per-run
// values, printing and saving of results.
package runner
