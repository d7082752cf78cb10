package metrics

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// containsFold is the reference model of mayHoldSecret: the lower-case
// ASCII word sub anywhere in s, ignoring ASCII case, tried at every byte.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// TestMayHoldSecretMatchesModel compares mayHoldSecret, which compares
// only around each 's', with the scan at every byte, on strings built
// from pieces of the three words in both cases.
func TestMayHoldSecretMatchesModel(t *testing.T) {
	pieces := []string{"pa", "PA", "ss", "sS", "s", "S", "u", "U", "se", "SE", "r", "R", "master", "MASTER", "auth", "Auth", "pass", "user", "masterauth", " ", "x", "\xd3", "3", "+reset-master ", "m1000-xxxxx"}
	rng := rand.New(rand.NewPCG(15, 4))
	for range 200000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		want := containsFold(s, "pass") || containsFold(s, "masterauth") || containsFold(s, "user")
		if got := mayHoldSecret(s); got != want {
			t.Fatalf("mayHoldSecret(%q) = %v, want %v", s, got, want)
		}
	}
}

// BenchmarkMayHoldSecret: an event line of a SENTINEL RESET loop (no
// secret) and a +set line (a secret).
func BenchmarkMayHoldSecret(b *testing.B) {
	for _, s := range []string{
		"master m1000-xxxxx 127.0.0.1 31000",
		"master " + strings.Repeat("n", 8192) + " 127.0.0.1 31000",
		"master mym 127.0.0.1 6379 auth-pass ******",
	} {
		b.Run(strings.Fields(s)[1][:3], func(b *testing.B) {
			for range b.N {
				mayHoldSecret(s)
			}
		})
		b.Run(strings.Fields(s)[1][:3]+"-model", func(b *testing.B) {
			for range b.N {
				_ = containsFold(s, "pass") || containsFold(s, "masterauth") || containsFold(s, "user")
			}
		})
	}
}
