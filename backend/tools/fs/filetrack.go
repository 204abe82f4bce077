package fs

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// With a ReadRecorder (SetRecorder) every record is also reported as a
// ReadMark with the file's content hash, for the session log; Seed gives a
// reopened session those marks back, and a seeded file counts as read as
// long as its content still has the recorded hash.
//
// The engine keeps one per session and hands it to the session's workspace
// (Workspace.TrackReads). It remembers at most MaxTrackedFiles files. A
// ReadTracker is safe for concurrent use.
type ReadTracker struct {
	mu    sync.Mutex
	files map[string]fileSeen
	n     uint64 // counts records: the age of an entry
	rec   ReadRecorder
}

// fileSeen is a file as the agent last saw it. A seeded mark has no info:
// only its hash and size are known.
type fileSeen struct {
	info    fs.FileInfo
	modTime time.Time
	size    int64
	hash    string
	n       uint64
}

// ReadMark is a file as the agent last saw it, as the session log keeps
// it: the tracked path (absolute, links followed), the hex SHA-256 of its
// content ("" when it was not hashed: too large, or it changed while being
// hashed) and its size.
type ReadMark struct {
	Path string
	Hash string
	Size int64
}

// ReadRecorder receives a tracker's marks. RecordRead is called from the
// tool calls, so it must be safe for concurrent use and must not block.
type ReadRecorder interface {
	RecordRead(ReadMark)
}

// MaxTrackedFiles bounds the files a ReadTracker remembers; past it, those
// seen longest ago are forgotten (the agent reads them again).
const MaxTrackedFiles = 4096

// maxHashBytes bounds the files whose content a mark hashes.
const maxHashBytes = 32 << 20

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker { return &ReadTracker{files: map[string]fileSeen{}} }

// SetRecorder makes t report every record to r (nil: to nobody). Call it
// before the tools run.
func (t *ReadTracker) SetRecorder(r ReadRecorder) {
	t.mu.Lock()
	t.rec = r
	t.mu.Unlock()
}

// Seed adds marks recorded earlier (a reopened session's, oldest first):
// each file counts as read while its content has the mark's hash. A file
// the tracker has seen itself keeps that record.
func (t *ReadTracker) Seed(marks []ReadMark) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range marks {
		if _, ok := t.files[m.Path]; ok || m.Path == "" {
			continue
		}
		t.n++
		t.files[m.Path] = fileSeen{size: m.Size, hash: m.Hash, n: t.n}
	}
	t.bound()
}

// recording reports whether t reports its records.
func (t *ReadTracker) recording() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rec != nil
}

// record notes that the agent saw the file at key as fi describes it, with
// hash its content's ("" when not hashed), and reports the mark.
func (t *ReadTracker) record(key string, fi fs.FileInfo, hash string) {
	if rec := t.remember(key, fi, hash); rec != nil {
		rec.RecordRead(ReadMark{Path: key, Hash: hash, Size: fi.Size()})
	}
}

// remember is record without the report, which it leaves to the caller:
// it returns the recorder to report to (nil for none).
func (t *ReadTracker) remember(key string, fi fs.FileInfo, hash string) ReadRecorder {
	if t == nil || fi == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	t.files[key] = fileSeen{info: fi, modTime: fi.ModTime(), size: fi.Size(), hash: hash, n: t.n}
	t.bound()
	return t.rec
}

// bound forgets the oldest files past MaxTrackedFiles (an eighth more, so
// that it does not sort at every record); t.mu is held.
func (t *ReadTracker) bound() {
	if len(t.files) <= MaxTrackedFiles {
		return
	}
	type aged struct {
		key string
		n   uint64
	}
	all := make([]aged, 0, len(t.files))
	for k, f := range t.files {
		all = append(all, aged{k, f.n})
	}
	slices.SortFunc(all, func(a, b aged) int { return cmp.Compare(a.n, b.n) })
	for _, a := range all[:len(all)-MaxTrackedFiles*7/8] {
		delete(t.files, a.key)
	}
}

// staleness says whether the agent may change the existing file at key,
// which now looks like cur: readNever when it has not read it, readStale
// when it changed since, readFresh otherwise, and readByHash for a seeded
// mark, which only the content can confirm (seen is that mark).
func (t *ReadTracker) staleness(key string, cur fs.FileInfo) (readState, fileSeen) {
	t.mu.Lock()
	defer t.mu.Unlock()
	seen, ok := t.files[key]
	switch {
	case !ok:
		return readNever, seen
	case seen.info == nil:
		return readByHash, seen
	case !os.SameFile(seen.info, cur) || !seen.modTime.Equal(cur.ModTime()) || seen.size != cur.Size():
		return readStale, seen
	}
	return readFresh, seen
}

type readState int

const (
	readFresh readState = iota
	readNever
	readStale
	readByHash
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
		w.reads.record(w.trackKey(name), fi, w.markHash(name, fi))
	}
}

// noteWritten records the file the agent just wrote.
func (w *Workspace) noteWritten(name string) {
	if w.reads == nil {
		return
	}
	if fi, err := w.Stat(name); err == nil {
		w.reads.record(w.trackKey(name), fi, w.markHash(name, fi))
	}
}

// markHash is the content hash a mark of name carries: none unless the
// tracker reports its marks.
func (w *Workspace) markHash(name string, fi fs.FileInfo) string {
	if !w.reads.recording() {
		return ""
	}
	return w.contentHash(name, fi)
}

// contentHash returns the hex SHA-256 of name's content, provided it is
// the file fi describes before and after; "" otherwise, or when it is
// larger than maxHashBytes or cannot be read.
func (w *Workspace) contentHash(name string, fi fs.FileInfo) string {
	if fi.Size() > maxHashBytes {
		return ""
	}
	f, st, err := w.OpenRegular(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	same := func(st fs.FileInfo) bool {
		return os.SameFile(st, fi) && st.ModTime().Equal(fi.ModTime()) && st.Size() == fi.Size()
	}
	if !same(st) {
		return ""
	}
	h := sha256.New()
	buf := make([]byte, min(fi.Size()+1, 32<<10)) // most files read are small
	if _, err := io.CopyBuffer(h, io.LimitReader(f, maxHashBytes+1), buf); err != nil {
		return ""
	}
	if after, err := f.Stat(); err != nil || !same(after) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// checkFresh returns the error result for changing the existing file name
// (shown as shown) when the agent has not read it, or it changed since;
// nil when the change may go ahead.
func (w *Workspace) checkFresh(name, shown string, cur fs.FileInfo) *tools.Result {
	if w.reads == nil {
		return nil
	}
	var r tools.Result
	key := w.trackKey(name)
	state, seen := w.reads.staleness(key, cur)
	if state == readByHash {
		// Read before the session was reopened: fresh if the content is
		// what it was then.
		state = readStale
		if seen.hash != "" && seen.size == cur.Size() {
			if h := w.contentHash(name, cur); h == seen.hash {
				w.reads.remember(key, cur, h) // the log has this mark already
				state = readFresh
			}
		}
	}
	switch state {
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
