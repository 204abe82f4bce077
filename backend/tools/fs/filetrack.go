package fs

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
	"tinyelf/backend/tools"
)

// ReadTracker remembers, for one session, which files the agent has read and
// what they looked like then, so that Write and Edit refuse to change a file
// the agent has not seen, or one that changed on disk since (the user edited
// it, a command rewrote it): the change would be made blind and could undo
// someone else's work. Reading any part of a file counts; a Write or Edit by
// the agent updates the record, so it can go on editing what it wrote.
//
// The engine keeps one per session and hands it to the session's workspace
// (Workspace.TrackReads). A ReadTracker is safe for concurrent use.
type ReadTracker struct {
	mu    sync.Mutex
	files map[string]fileSeen
}

// fileSeen is a file as the agent last saw it.
type fileSeen struct {
	info    fs.FileInfo
	modTime time.Time
	size    int64
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{files: map[string]fileSeen{}} }

// record notes that the agent saw the file at key as fi describes it.
func (t *ReadTracker) record(key string, fi fs.FileInfo) {
	if t == nil || fi == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.files[key] = fileSeen{info: fi, modTime: fi.ModTime(), size: fi.Size()}
}

// staleness says whether the agent may change the existing file at key,
// which now looks like cur: readNever when it has not read it, readStale
// when it changed since, readFresh otherwise.
func (t *ReadTracker) staleness(key string, cur fs.FileInfo) readState {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen, ok := t.files[key]
	switch {
	case !ok:
		return readNever
	case !os.SameFile(seen.info, cur) || !seen.modTime.Equal(cur.ModTime()) || seen.size != cur.Size():
		return readStale
	}
	return readFresh
}

type readState int

const (
	readFresh readState = iota
	readNever
	readStale
)

// TrackReads makes the workspace's Read, Write and Edit use t: reads are
// recorded, and Write over an existing file and Edit refuse files not read
// or changed since. Without a tracker (nil, the default, as for a single
// `tinyelf tool` call the user makes by hand) nothing is checked. Call it
// before the tools run.
func (w *Workspace) TrackReads(t *ReadTracker) { w.reads = t }

// trackKey is the name a file is tracked under: its absolute path, after
// following symbolic links as Write does, so a read through a link and a
// write to its target meet.
func (w *Workspace) trackKey(name string) string {
	if target, err := w.FollowLinks(name); err == nil {
		name = target
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(w.dir, name)
	}
	return filepath.Clean(name)
}

// noteSeen records that the agent saw (read or wrote) name as fi says.
func (w *Workspace) noteSeen(name string, fi fs.FileInfo) {
	if w.reads != nil {
		w.reads.record(w.trackKey(name), fi)
	}
}

// noteWritten records the file the agent just wrote.
func (w *Workspace) noteWritten(name string) {
	if w.reads == nil {
		return
	}
	if fi, err := w.Stat(name); err == nil {
		w.reads.record(w.trackKey(name), fi)
	}
}

// checkFresh returns the error result for changing the existing file name
// (shown as shown) when the agent has not read it, or it changed since;
// nil when the change may go ahead.
func (w *Workspace) checkFresh(name, shown string, cur fs.FileInfo) *tools.Result {
	if w.reads == nil {
		return nil
	}
	var r tools.Result
	switch w.reads.staleness(w.trackKey(name), cur) {
	case readNever:
		r = tools.Errorf("%s already exists and you have not read it in this session. Read it first (a part is enough), so that you do not overwrite what you have not seen.", shown)
	case readStale:
		r = tools.Errorf("%s was modified since you last read it; read it again before changing it (the user or a command changed it on disk).", shown)
	default:
		return nil
	}
	r.Meta = map[string]any{"path": shown, "notRead": true}
	return &r
}
