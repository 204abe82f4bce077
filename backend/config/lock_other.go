//go:build !unix

package config

// LockFile does nothing where advisory locks are not available; updates
// within one process are still serialized by each store's mutex.
func LockFile(string) (func(), error) { return func() {}, nil }
