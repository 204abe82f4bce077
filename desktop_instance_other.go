//go:build desktop && !linux

package main

// focusRunning leaves the single-instance check to Wails' own lock on
// this platform.
func focusRunning(string) bool { return false }
