//go:build !unix

package server

// getBlock returns an empty output block from the Go heap (systems
// without mmap).
func getBlock() *outBlock { return &outBlock{b: make([]byte, 0, outBlockSize)} }

// putBlock drops a block; the garbage collector frees it.
func putBlock(b *outBlock) { b.b = nil }
