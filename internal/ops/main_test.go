package ops

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	SilenceDriverLogs()
	goleak.VerifyTestMain(m)
}
