package api

import (
	"path/filepath"
	"runtime"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/proc"
)

// newChildren returns the owner of the child processes one surface starts:
// their groups recorded under the data dir (dataDir "" records nothing),
// and kept from each child, whoever starts it and whatever environment it
// passes, the secrets the current settings and environment name
// (engine.ChildSecrets: TinyElf's key variables by name, every key the
// settings hold by value).
func newChildren(dataDir string, settings *config.Store, getenv func(string) string) *proc.Children {
	root := ""
	if dataDir != "" {
		root = filepath.Join(dataDir, proc.ChildrenFolder)
	}
	return proc.NewChildren(root, func() proc.Secrets {
		return engine.ChildSecrets(settings.Get().WithEnvironment(getenv))
	})
}

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
