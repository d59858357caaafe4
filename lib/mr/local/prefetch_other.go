//go:build !amd64

package local

// prefetch is a no-op where there is no prefetch instruction wrapper.
func prefetch(*byte) {}
