//go:build !linux

package main

import "errors"

// loop exists on Linux only (epoll); -mode e fails elsewhere.
type loop struct{}

func newLoop() (*loop, error) { return nil, errors.New("-mode e needs Linux (epoll)") }

func (l *loop) add(*conn) error { return nil }

func (l *loop) run() {}
