//go:build !unix

package cli

import "os/exec"

// detachAttr leaves cmd as it is where sessions do not exist.
func detachAttr(*exec.Cmd) {}
