package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"tinyelf/backend/config"
)

// TrustState is the user's answer about a workspace's project hooks.
type TrustState string

// The trust states. Untrusted is the state of project hooks nobody was
// asked about yet, or that changed since the answer.
const (
	TrustUntrusted TrustState = "untrusted"
	TrustTrusted   TrustState = "trusted"
	TrustDenied    TrustState = "denied"
)

// ParseTrustState reads a state name.
func ParseTrustState(s string) (TrustState, error) {
	switch st := TrustState(s); st {
	case TrustUntrusted, TrustTrusted, TrustDenied:
		return st, nil
	}
	return "", fmt.Errorf("unknown trust state %q (want trusted, denied or untrusted)", s)
}

// TrustFile is the hooks trust store's file name in the data folder.
const TrustFile = "hooks-trust.json"

const trustVersion = 1

type trustRecord struct {
	State TrustState `json:"state"`
	// Hash is Project.Hash of the hooks the answer was given for.
	Hash string    `json:"hash"`
	At   time.Time `json:"at"`
}

type trustData struct {
	Version    int                    `json:"version"`
	Workspaces map[string]trustRecord `json:"workspaces,omitempty"`
}

// TrustStore remembers, per workspace, whether the user trusts its project
// hooks, and for which version of them: an answer holds only while the
// hooks stay exactly as they were (Project.Hash), so hooks a pull or a
// checkout changed are asked about again. It keeps its own JSON file in
// the data folder and is safe for concurrent use, also across processes
// (every Set re-reads the file under a lock and writes it atomically).
type TrustStore struct {
	path string

	mu      sync.Mutex
	data    trustData
	stamp   fileStamp
	warning string
}

// OpenTrustStore loads the trust file at path; a missing file trusts
// nothing. A file that does not parse is renamed aside and Warning says
// where: every project's hooks are then untrusted again, the safe side.
func OpenTrustStore(path string) (*TrustStore, error) {
	t := &TrustStore{path: path, data: trustData{Version: trustVersion}}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("read hooks trust %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &t.data); err != nil {
		aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(path, aside); rerr != nil {
			return nil, fmt.Errorf("hooks trust %s is corrupt (%v) and could not be set aside: %w", path, err, rerr)
		}
		t.data = trustData{Version: trustVersion}
		t.warning = fmt.Sprintf("The hooks trust file could not be read (%v); it was kept as %s and every project's hooks are untrusted again.", err, aside)
		return t, nil
	}
	t.stamp = stampOf(path)
	return t, nil
}

// Warning returns the problem met while loading, if any.
func (t *TrustStore) Warning() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.warning
}

// WorkspaceKey names a workspace the same way whatever path led to it.
func WorkspaceKey(ws string) string {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return filepath.Clean(ws)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// State returns the answer for the project hooks of workspace whose hash
// is hash: TrustUntrusted when there is none, or when it was given for
// other hooks. A nil store trusts nothing.
func (t *TrustStore) State(workspace, hash string) TrustState {
	if t == nil || hash == "" {
		return TrustUntrusted
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reload()
	r, ok := t.data.Workspaces[WorkspaceKey(workspace)]
	if !ok || r.Hash != hash {
		return TrustUntrusted
	}
	return r.State
}

// Set records the answer for the project hooks of workspace (hash: the
// hooks it is given for) and saves it before returning; TrustUntrusted
// forgets the answer.
func (t *TrustStore) Set(workspace, hash string, state TrustState) error {
	if t == nil {
		return errors.New("save hooks trust: there is no trust store here")
	}
	if _, err := ParseTrustState(string(state)); err != nil {
		return err
	}
	if workspace == "" || (hash == "" && state != TrustUntrusted) {
		return errors.New("save hooks trust: a workspace with project hooks is needed")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := config.LockFile(t.path + ".lock")
	if err != nil {
		return fmt.Errorf("save hooks trust: %w", err)
	}
	defer unlock()
	t.stamp = fileStamp{}
	t.reload()
	next := trustData{Version: trustVersion, Workspaces: maps.Clone(t.data.Workspaces)}
	if next.Workspaces == nil {
		next.Workspaces = map[string]trustRecord{}
	}
	key := WorkspaceKey(workspace)
	if state == TrustUntrusted {
		delete(next.Workspaces, key)
	} else {
		next.Workspaces[key] = trustRecord{State: state, Hash: hash, At: time.Now().UTC()}
	}
	if err := config.WriteJSONAtomic(t.path, next); err != nil {
		return fmt.Errorf("save hooks trust: %w", err)
	}
	t.data, t.stamp = next, stampOf(t.path)
	return nil
}

// reload re-reads the file when another process changed it; t.mu is held.
func (t *TrustStore) reload() {
	st := stampOf(t.path)
	if st == t.stamp || st == (fileStamp{}) {
		return
	}
	b, err := os.ReadFile(t.path)
	if err != nil {
		return
	}
	var fresh trustData
	if json.Unmarshal(b, &fresh) == nil {
		t.data, t.stamp = fresh, st
	}
}

type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi.ModTime(), fi.Size()}
}
