//go:build !unix

package mcp

// lockFile does not lock where flock is missing; concurrent installs are
// then up to npm.
func lockFile(path string) (func(), error) { return func() {}, nil }
