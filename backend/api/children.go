package api

import (
	"runtime"
	"tinyelf/backend/proc"
)

// openFolder asks the desktop's file manager to show dir. The opener is a
// child like any other (the clean environment, a session of its own) but
// detached: the window it opens is the user's, and stays when TinyElf
// exits.
func openFolder(c *proc.Children, dir string) error {
	opener := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		opener = "open"
	case "windows":
		opener = "explorer"
	}
	return c.Command(opener, dir).Detach()
}

// StartSelf starts TinyElf again with args as a process of its own that
// outlives this one and is not waited for (the runner of a submitted
// task); see proc.StartSelf.
func StartSelf(args ...string) error { return proc.StartSelf(args...) }
