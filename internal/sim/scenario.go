package sim

import (
	"encoding/json"
	"fmt"
)

// scenarioFile is the JSON form of a scenario: the options a seed
// expanded into, fault plan included, and their fingerprint.
type scenarioFile struct {
	Fingerprint string  `json:"fingerprint"`
	Options     Options `json:"options"`
}

// SaveScenario renders o (fault plan included) as JSON, so a violation
// can be replayed exactly even after the option expansion changes.
func SaveScenario(o Options) ([]byte, error) {
	b, err := json.MarshalIndent(scenarioFile{Fingerprint: o.Fingerprint(), Options: o}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sim: encode scenario: %w", err)
	}
	return b, nil
}

// LoadScenario parses a scenario written by SaveScenario and checks its
// fingerprint.
func LoadScenario(b []byte) (Options, error) {
	var f scenarioFile
	if err := json.Unmarshal(b, &f); err != nil {
		return Options{}, fmt.Errorf("sim: decode scenario: %w", err)
	}
	if err := f.Options.Validate(); err != nil {
		return Options{}, err
	}
	if got := f.Options.Fingerprint(); f.Fingerprint != "" && got != f.Fingerprint {
		return Options{}, fmt.Errorf("%w: fingerprint %s, file says %s", ErrInvalidOptions, got, f.Fingerprint)
	}
	return f.Options, nil
}
