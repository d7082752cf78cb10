package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// daemonEnv marks the re-executed child of `daemonize yes`.
const daemonEnv = "GOSENTINEL_DAEMONIZED"

// daemonize re-executes the binary detached from the terminal (Go cannot
// fork): a new session, stdio on /dev/null, same arguments and working
// directory. The parent then exits 0, like redis-server's daemonize().
func daemonize(argv []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find executable: %w", err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()
	cmd := exec.Command(exe, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append(os.Environ(), daemonEnv+"=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", exe, err)
	}
	return cmd.Process.Release()
}
