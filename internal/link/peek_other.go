//go:build !unix

package link

import "errors"

// canPeek says whether peekEmpty and writeFD work here: not on this
// platform, where links read without a separate readiness wait and write
// from a writer goroutine only.
const canPeek = false

func peekEmpty(uintptr) bool { return false }

func writeFD(uintptr, []byte) (int, error) { return 0, errors.ErrUnsupported }
