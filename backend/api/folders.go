package api

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ListFoldersArgs names a folder whose sub-folders to list ("" is home).
type ListFoldersArgs struct {
	Path       string `json:"path"`
	ShowHidden bool   `json:"showHidden,omitempty"`
}

// FolderListing is a folder and its sub-folders, for choosing a workspace
// in the browser, which has no native folder dialog.
type FolderListing struct {
	Path    string   `json:"path"`
	Parent  string   `json:"parent,omitempty"`
	Folders []string `json:"folders"`
}

// ListFolders lists the sub-folders of a folder.
func (s *Service) ListFolders(_ context.Context, a ListFoldersArgs) (FolderListing, error) {
	p := strings.TrimSpace(a.Path)
	if p == "" || p == "~" {
		home, err := os.UserHomeDir()
		if err != nil {
			return FolderListing{}, invalidf("no home folder: %v", err)
		}
		p = home
	} else if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return FolderListing{}, invalidf("%v", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return FolderListing{}, invalidf("cannot list %s: %v", abs, err)
	}
	out := FolderListing{Path: abs, Folders: []string{}}
	if parent := filepath.Dir(abs); parent != abs {
		out.Parent = parent
	}
	for _, e := range entries {
		if !a.ShowHidden && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() {
			out.Folders = append(out.Folders, e.Name())
		} else if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(abs, e.Name())); err == nil && st.IsDir() {
				out.Folders = append(out.Folders, e.Name())
			}
		}
	}
	sort.Slice(out.Folders, func(i, j int) bool { return strings.ToLower(out.Folders[i]) < strings.ToLower(out.Folders[j]) })
	return out, nil
}
