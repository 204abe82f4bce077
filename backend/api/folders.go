package api

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
)

// ListFoldersArgs names a folder whose sub-folders to list ("" is home).
// Nearest lists the nearest existing folder above Path when Path does not
// exist (the picker opens at the default workspace before its first chat
// has made it).
type ListFoldersArgs struct {
	Path       string `json:"path"`
	ShowHidden bool   `json:"showHidden,omitempty"`
	Nearest    bool   `json:"nearest,omitempty"`
}

// FolderListing is a folder and its sub-folders, for choosing a workspace
// in the browser, which has no native folder dialog.
type FolderListing struct {
	Path    string   `json:"path"`
	Parent  string   `json:"parent,omitempty"`
	Folders []string `json:"folders"`
	// Hidden counts the hidden sub-folders left out (ShowHidden lists them).
	Hidden int `json:"hidden"`
}

// expandHome resolves a leading "~" to the home folder.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// folderProblem says in one line why path cannot be used as a folder, or
// "" when it can.
func folderProblem(path string) string {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "There is no folder at " + path + "."
	case errors.Is(err, fs.ErrPermission):
		return "TinyElf is not allowed to open " + path + "."
	case err != nil:
		return "Cannot open " + path + "."
	case !st.IsDir():
		return path + " is a file, not a folder."
	}
	return ""
}

// ListFolders lists the sub-folders of a folder. A path that is not a
// folder gets one line saying why (no such folder, a file, not allowed).
func (s *Service) ListFolders(_ context.Context, a ListFoldersArgs) (FolderListing, error) {
	p := strings.TrimSpace(a.Path)
	if p == "" {
		p = "~"
	}
	abs, err := filepath.Abs(expandHome(p))
	if err != nil {
		return FolderListing{}, invalidf("%s is not a path TinyElf understands.", p)
	}
	if a.Nearest {
		for _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist); _, err = os.Stat(abs) {
			parent := filepath.Dir(abs)
			if parent == abs {
				break
			}
			abs = parent
		}
	}
	if problem := folderProblem(abs); problem != "" {
		return FolderListing{}, invalidf("%s", problem)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return FolderListing{}, invalidf("TinyElf could not read the folder %s.", abs)
	}
	out := FolderListing{Path: abs, Folders: []string{}}
	if parent := filepath.Dir(abs); parent != abs {
		out.Parent = parent
	}
	for _, e := range entries {
		isDir := e.IsDir()
		if !isDir && e.Type()&os.ModeSymlink != 0 {
			st, err := os.Stat(filepath.Join(abs, e.Name()))
			isDir = err == nil && st.IsDir()
		}
		if !isDir {
			continue
		}
		if strings.HasPrefix(e.Name(), ".") && !a.ShowHidden {
			out.Hidden++
			continue
		}
		out.Folders = append(out.Folders, e.Name())
	}
	sort.Slice(out.Folders, func(i, j int) bool { return strings.ToLower(out.Folders[i]) < strings.ToLower(out.Folders[j]) })
	return out, nil
}

// maxRecentFolders bounds RecentFolders.
const maxRecentFolders = 8

// RecentFolders returns the folders of the most recently used sessions
// that still exist, newest first, the default workspace left out (the
// picker offers it apart).
func (s *Service) RecentFolders(ctx context.Context, _ struct{}) ([]string, error) {
	list, err := s.store.List(ctx, sessions.ListOptions{Limit: 200})
	if err != nil {
		return nil, mapErr(err)
	}
	def, _ := s.defaultWorkspace()
	seen := map[string]bool{def: true}
	out := []string{}
	add := func(ws string) {
		if ws == "" || seen[ws] || len(out) >= maxRecentFolders {
			return
		}
		seen[ws] = true
		if folderProblem(ws) == "" {
			out = append(out, ws)
		}
	}
	add(s.settings.Get().LastWorkspace)
	for _, sess := range list {
		add(sess.Workspace)
	}
	return out, nil
}

// defaultWorkspace is the folder a chat works in when the user chose none
// (config.DefaultWorkspace), not created here.
func (s *Service) defaultWorkspace() (string, error) {
	if s.opts.DefaultWorkspace != "" {
		return s.opts.DefaultWorkspace, nil
	}
	return config.DefaultWorkspace(s.opts.Getenv)
}

// resolveWorkspace turns a workspace argument into an existing folder: the
// given one (which must exist, unless it is the default workspace), else
// the last one used (when it still exists), else the default workspace.
// The default workspace is created on first use.
func (s *Service) resolveWorkspace(arg string) (string, error) {
	ws := strings.TrimSpace(arg)
	def, defErr := s.defaultWorkspace()
	makeDefault := func() (string, error) {
		if defErr != nil {
			return "", invalidf("choose a workspace folder first (no home folder to make one in: %v)", defErr)
		}
		if err := os.MkdirAll(def, 0o755); err != nil {
			return "", invalidf("could not create the default workspace %s: %v; choose another folder", def, err)
		}
		return def, nil
	}
	if ws == "" {
		if last := s.settings.Get().LastWorkspace; last != "" && folderProblem(last) == "" {
			return last, nil
		}
		return makeDefault()
	}
	abs, err := filepath.Abs(expandHome(ws))
	if err != nil {
		return "", invalidf("%s is not a path TinyElf understands.", ws)
	}
	if defErr == nil && abs == filepath.Clean(def) {
		return makeDefault()
	}
	if problem := folderProblem(abs); problem != "" {
		return "", invalidf("%s", problem)
	}
	return abs, nil
}
