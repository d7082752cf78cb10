//go:build !race

package resp

// raceEnabled: see race_on_test.go.
const raceEnabled = false
