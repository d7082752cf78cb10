package sim

import (
	"reflect"
	"testing"
)

// TestSeedNamesScenario pins what a few seeds mean: the fingerprint covers
// the options and the fault plan, both drawn from the seed alone, so no
// change to the core can move it. A change to the option expansion or the
// fault model must update these (and say so in docs/sim.md): old seeds
// then name other scenarios, and saved scenario files are the way to
// replay an old report.
func TestSeedNamesScenario(t *testing.T) {
	for seed, want := range map[uint64]string{
		1:    "33ecc43aa5840a3b", // round seven: f3835eeafdb3687b before sentinel-announce (round six: 5a97f4df5f59dfd6 before operator-reset; round three: 63ca85aea17415e8 before sentinel AUTH)
		2:    "3a4da3f356136b2e",
		3:    "9d96f217e777344b", // round three: cd5c0e534d5707f0 before PSYNC and hostnames
		42:   "86ff31e442f3a800", // round six: d11096a16fafbd10 before operator-reset (round three: 6f63ac9f031e0b95)
		1000: "06180c550ae98818", // round six: f815e154bc78f865 before operator-reset
		9:    "5b8309545730f13d", // round nine: 74d373d88d1b732e before info-denied
	} {
		if got := NewOptions(seed).Fingerprint(); got != want {
			t.Errorf("seed %d: scenario fingerprint %s, want %s (the seed → scenario expansion changed)", seed, got, want)
		}
	}
}

// TestRunDoesNotChangeScenario: running a seed leaves its options and
// plan as they were (the plan is data, not drawn during the run).
func TestRunDoesNotChangeScenario(t *testing.T) {
	o := NewOptions(7)
	before := o.Fingerprint()
	res := RunOptions(o, Config{})
	if res.Options.Fingerprint() != before || NewOptions(7).Fingerprint() != before {
		t.Fatal("the run changed the scenario")
	}
	if len(o.Plan) == 0 {
		t.Fatal("seed 7 has an empty fault plan")
	}
}

func TestScenarioRoundTrip(t *testing.T) {
	o := NewOptions(11)
	b, err := SaveScenario(o)
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadScenario(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, o) {
		t.Fatal("scenario changed through JSON")
	}
	a, bb := RunOptions(o, Config{Trace: true}), RunOptions(back, Config{Trace: true})
	if a.Trace != bb.Trace {
		t.Fatal("a loaded scenario does not replay the same run")
	}
	o.Plan[0].At++
	b2, _ := SaveScenario(o)
	b2 = append([]byte(nil), b2...)
	if _, err := LoadScenario(append(b[:len(b)-1:len(b)-1], []byte(" ")...)); err == nil {
		t.Fatal("truncated scenario accepted")
	}
	tampered := []byte(string(b2))
	for i := range tampered {
		if string(tampered[i:i+len(`"At": `)]) == `"At": ` {
			tampered[i+len(`"At": `)] = '9'
			break
		}
	}
	if _, err := LoadScenario(tampered); err == nil {
		t.Fatal("a scenario whose fingerprint does not match was accepted")
	}
}

// TestNewKindsKeepPlan: the round-three fault kinds draw from their own
// streams, so a seed's faults of the older kinds are the same with or
// without them (what "keep the fault plan stable" means).
func TestNewKindsKeepPlan(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		o := NewOptions(seed)
		old := o
		old.Faults.SentinelAuthRotate, old.Faults.SentinelWrongPass, old.Faults.ReplBurst = 0, 0, 0
		old.Faults.NameMove, old.Faults.NameUnresolvable = 0, 0
		old.Faults.OperatorReset = 0 // round six
		want := old.plan()
		var got []Fault
		for _, f := range o.Plan {
			if f.Kind < FaultSentinelAuthRotate {
				got = append(got, f)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: the older kinds' faults moved when the new kinds were added", seed)
		}
		// Round six's operator-reset leaves every other fault in place.
		six := o
		six.Faults.OperatorReset = 0
		want, got = six.plan(), nil
		for _, f := range o.Plan {
			if f.Kind != FaultOperatorReset {
				got = append(got, f)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: other faults moved when operator-reset was added", seed)
		}
	}
}

// TestInfoDeniedKeepsScenario: round nine's INFO denial is drawn from a
// stream of its own and is no fault of the plan, so a seed that draws it
// keeps every other option and its whole fault plan, and a seed that does
// not keeps its fingerprint (checked against main's binary when it was
// added: seeds 1–300, 70 draw it).
func TestInfoDeniedKeepsScenario(t *testing.T) {
	drawn := 0
	for seed := uint64(1); seed <= 300; seed++ {
		o := NewOptions(seed)
		if o.InfoDenied == InfoDeniedNone {
			if o.InfoDeniedFor != 0 {
				t.Fatalf("seed %d: info-denied-for %d without a denial", seed, o.InfoDeniedFor)
			}
			continue
		}
		drawn++
		if !o.KillMasterAfterHeal || !o.hasPromotable() || o.InfoDeniedFor <= o.DownAfter {
			t.Fatalf("seed %d: info denial drawn with kill %v, promotable %v, for %dms", seed, o.KillMasterAfterHeal, o.hasPromotable(), o.InfoDeniedFor)
		}
		if !reflect.DeepEqual(o.plan(), o.Plan) {
			t.Fatalf("seed %d: plan differs from its own options' plan", seed)
		}
		// The denial itself draws nothing from the base or fault streams:
		// without it the seed expands to the same options but those fields.
		old := o
		old.InfoDenied, old.InfoDeniedFor = InfoDeniedNone, 0
		if !reflect.DeepEqual(old.plan(), o.Plan) {
			t.Fatalf("seed %d: the fault plan depends on the info denial", seed)
		}
	}
	if drawn < 300/8 || drawn > 300/2 {
		t.Fatalf("info denial drawn in %d of 300 seeds, want about a quarter", drawn)
	}
}
