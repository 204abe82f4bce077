//go:build !unix

package skills

// lockFile does nothing where advisory locks are not available; updates
// within one process are still serialized by the store's mutex.
func lockFile(string) (func(), error) { return func() {}, nil }
