// Package architecture holds one test: docs/architecture.md's package table
// must list every package of the module with exactly the module packages it
// imports, so the page cannot drift from the code (issue 12, item 8).
package architecture
