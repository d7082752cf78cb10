// Package config reads, validates and rewrites sentinel.conf exactly the way
// Redis Sentinel 7.0.15 does (config.c, sentinelHandleConfiguration and
// rewriteConfig).
//
// Load and Parse read a file into a Config; ApplyArgs appends command-line
// overrides (--port 5000 --sentinel monitor ...) as redis-server does.
// Errors are *ConfigError values carrying the file, the line number and the
// exact message real Redis prints. Rewrite writes a Config back into the
// file, keeping the user's lines and comments in place, atomically.
//
// The package depends on the standard library only; the runtime fills a
// Config (the sentinel state to persist) from the core before calling
// Rewrite.
package config
