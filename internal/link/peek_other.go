//go:build !unix

package link

// canPeek says whether peekEmpty works here: not on this platform, where
// links read without a separate readiness wait.
const canPeek = false

func peekEmpty(uintptr) bool { return false }
