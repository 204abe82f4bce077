package skills

import (
	"crypto/rand"
	"encoding/hex"
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

// TrustState is the user's answer about one project skill in one workspace.
type TrustState string

// The trust states. Untrusted is the state of a project skill nobody has
// been asked about yet (and of one whose answer was withdrawn).
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

// TrustFile is the trust store's file name inside the data folder.
const TrustFile = "skill-trust.json"

// trustVersion is the version of the trust file this build writes.
const trustVersion = 1

type trustRecord struct {
	State TrustState `json:"state"`
	At    time.Time  `json:"at"`
}

type trustData struct {
	Version int `json:"version"`
	// Workspaces maps a workspace folder (absolute, symlinks resolved) to
	// its project skills' answers by skill name.
	Workspaces map[string]map[string]trustRecord `json:"workspaces,omitempty"`
}

// TrustStore remembers, per workspace, which project skills the user trusts
// or denied, in its own JSON file in the data folder. It is safe for
// concurrent use, also across processes (the window and a `tinyelf run`):
// every Set re-reads the file under an advisory lock and writes it
// atomically, and reads pick up what another process saved.
type TrustStore struct {
	path string

	mu    sync.Mutex
	data  trustData
	stamp fileStamp
	// warning explains a corrupt file that was set aside.
	warning string
}

// OpenTrustStore loads the trust file at path (usually
// <data dir>/skill-trust.json). A missing file means nothing is trusted yet.
// A file that does not parse is renamed aside (never deleted) and Warning
// says where it went; every project skill is then untrusted again, which
// is the safe side.
func OpenTrustStore(path string) (*TrustStore, error) {
	t := &TrustStore{path: path, data: trustData{Version: trustVersion}}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		return nil, fmt.Errorf("read skill trust %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &t.data); err != nil {
		aside := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405Z"))
		if rerr := os.Rename(path, aside); rerr != nil {
			return nil, fmt.Errorf("skill trust %s is corrupt (%v) and could not be set aside: %w", path, err, rerr)
		}
		t.data = trustData{Version: trustVersion}
		t.warning = fmt.Sprintf("The skill trust file could not be read (%v); it was kept as %s and every project skill is untrusted again.", err, aside)
		return t, nil
	}
	t.stamp = stampOf(path)
	return t, nil
}

// Path returns the trust file's path.
func (t *TrustStore) Path() string { return t.path }

// Warning returns the problem met while loading, if any.
func (t *TrustStore) Warning() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.warning
}

// workspaceKey names a workspace the same way whatever path led to it.
func workspaceKey(ws string) string {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return filepath.Clean(ws)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// State returns the answer for skill in workspace (TrustUntrusted when none).
func (t *TrustStore) State(workspace, skill string) TrustState {
	if t == nil {
		return TrustUntrusted
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reload()
	if r, ok := t.data.Workspaces[workspaceKey(workspace)][skill]; ok {
		return r.State
	}
	return TrustUntrusted
}

// States returns every answer recorded for workspace, by skill name.
func (t *TrustStore) States(workspace string) map[string]TrustState {
	out := map[string]TrustState{}
	if t == nil {
		return out
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reload()
	for name, r := range t.data.Workspaces[workspaceKey(workspace)] {
		out[name] = r.State
	}
	return out
}

// Set records the answer for skill in workspace and saves it before
// returning. TrustUntrusted forgets the answer, so the user is asked again.
func (t *TrustStore) Set(workspace, skill string, state TrustState) error {
	if _, err := ParseTrustState(string(state)); err != nil {
		return err
	}
	if skill == "" || workspace == "" {
		return fmt.Errorf("set skill trust: a workspace and a skill name are needed")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	unlock, err := config.LockFile(t.path + ".lock")
	if err != nil {
		return fmt.Errorf("save skill trust: %w", err)
	}
	defer unlock()
	// Under the lock the file is read whatever its stamp: two writes within
	// one mtime tick must not lose one of them.
	t.stamp = fileStamp{}
	t.reload()
	next := trustData{Version: trustVersion, Workspaces: map[string]map[string]trustRecord{}}
	for ws, m := range t.data.Workspaces {
		next.Workspaces[ws] = maps.Clone(m)
	}
	key := workspaceKey(workspace)
	if state == TrustUntrusted {
		delete(next.Workspaces[key], skill)
		if len(next.Workspaces[key]) == 0 {
			delete(next.Workspaces, key)
		}
	} else {
		if next.Workspaces[key] == nil {
			next.Workspaces[key] = map[string]trustRecord{}
		}
		next.Workspaces[key][skill] = trustRecord{State: state, At: time.Now().UTC()}
	}
	if err := config.WriteJSONAtomic(t.path, next); err != nil {
		return fmt.Errorf("save skill trust: %w", err)
	}
	t.data, t.stamp = next, stampOf(t.path)
	return nil
}

// reload re-reads the file when another process changed it; a file that
// does not parse (half-written by a foreign tool) is ignored. Callers hold
// t.mu.
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

// fileStamp identifies a version of a file cheaply.
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

// randomSuffix names temporary and set-aside files.
func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
