//go:build unix

package server

import (
	"sync"
	"syscall"
)

// maxFreeBlocks bounds the free list of output blocks (4 MiB): enough to
// serve bursts without a syscall per block, small enough not to keep a
// dropped slow subscriber's memory.
const maxFreeBlocks = 256

// blockFree is the free list of mapped output blocks.
var blockFree struct {
	mu     sync.Mutex
	blocks []*outBlock
}

// getBlock returns an empty output block of outBlockSize bytes mapped
// outside the Go heap (anonymous private memory, like malloc's large
// chunks); if mapping fails it falls back to the heap.
func getBlock() *outBlock {
	blockFree.mu.Lock()
	if n := len(blockFree.blocks); n > 0 {
		b := blockFree.blocks[n-1]
		blockFree.blocks = blockFree.blocks[:n-1]
		blockFree.mu.Unlock()
		return b
	}
	blockFree.mu.Unlock()
	m, err := syscall.Mmap(-1, 0, outBlockSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return &outBlock{b: make([]byte, 0, outBlockSize)}
	}
	return &outBlock{b: m[:0], mapped: true}
}

// putBlock returns a block to the free list or unmaps it. Heap blocks
// (from a failed mapping) are left to the garbage collector.
func putBlock(b *outBlock) {
	b.b = b.b[:0]
	if !b.mapped {
		return
	}
	blockFree.mu.Lock()
	if len(blockFree.blocks) < maxFreeBlocks {
		blockFree.blocks = append(blockFree.blocks, b)
		blockFree.mu.Unlock()
		return
	}
	blockFree.mu.Unlock()
	_ = syscall.Munmap(b.b[:outBlockSize])
}
