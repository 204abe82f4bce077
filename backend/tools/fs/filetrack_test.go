package fs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"tinyelf/backend/tools"
)

// TestReadBeforeWrite: with a tracker, Write over an existing file and Edit
// need a Read of that file in the session, and refuse a file that changed
// on disk since; new files are fine, and the agent's own writes count as
// seen.
func TestReadBeforeWrite(t *testing.T) {
	t.Parallel()
	type step struct {
		tool    string // Read, Write, Edit, or touch (changes the file on disk behind the agent's back)
		args    string
		wantErr string // "" for success
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"new file needs no read", []step{
			{"Write", `{"path":"new.txt","content":"hi\n"}`, ""},
		}},
		{"overwrite without a read is refused", []step{
			{"Write", `{"path":"a.txt","content":"x"}`, "you have not read it in this session"},
		}},
		{"edit without a read is refused", []step{
			{"Edit", `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`, "you have not read it in this session"},
		}},
		{"read then write", []step{
			{"Read", `{"path":"a.txt"}`, ""},
			{"Write", `{"path":"a.txt","content":"x"}`, ""},
		}},
		{"a partial read counts", []step{
			{"Read", `{"path":"a.txt","offset":2,"limit":1}`, ""},
			{"Edit", `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`, ""},
		}},
		{"changed on disk since the read", []step{
			{"Read", `{"path":"a.txt"}`, ""},
			{"touch", "a.txt", ""},
			{"Edit", `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`, "modified since you last read it; read it again"},
			{"Write", `{"path":"a.txt","content":"x"}`, "modified since you last read it; read it again"},
			{"Read", `{"path":"a.txt"}`, ""},
			{"Write", `{"path":"a.txt","content":"x"}`, ""},
		}},
		{"the agent's own writes count as seen", []step{
			{"Write", `{"path":"mine.txt","content":"one\n"}`, ""},
			{"Edit", `{"path":"mine.txt","old_string":"one","new_string":"two"}`, ""},
			{"Edit", `{"path":"mine.txt","old_string":"two","new_string":"three"}`, ""},
			{"Write", `{"path":"mine.txt","content":"four\n"}`, ""},
		}},
		{"read through a link, write the target", []step{
			{"Read", `{"path":"link.txt"}`, ""},
			{"Edit", `{"path":"a.txt","old_string":"alpha","new_string":"ALPHA"}`, ""},
		}},
		{"a failed read does not count", []step{
			{"Read", `{"path":"a.txt","offset":99}`, "past the end"},
			{"Write", `{"path":"a.txt","content":"x"}`, "you have not read it"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws, dir := newTestWorkspace(t, map[string]string{"a.txt": "first\nalpha\nlast\n"})
			if err := os.Symlink("a.txt", filepath.Join(dir, "link.txt")); err != nil {
				t.Fatal(err)
			}
			ws.TrackReads(NewReadTracker())
			byName := map[string]tools.Tool{"Read": NewRead(ws), "Write": NewWrite(ws), "Edit": NewEdit(ws)}
			for i, st := range tc.steps {
				if st.tool == "touch" {
					p := filepath.Join(dir, st.args)
					old, _ := os.ReadFile(p)
					if err := os.WriteFile(p, append(old, "added by the user\n"...), 0o644); err != nil {
						t.Fatal(err)
					}
					// Coarse file systems keep the mtime; the size changes anyway.
					later := time.Now().Add(2 * time.Second)
					_ = os.Chtimes(p, later, later)
					continue
				}
				res := execTool(t, byName[st.tool], st.args)
				switch {
				case st.wantErr == "" && res.IsError:
					t.Fatalf("step %d %s %s failed:\n%s", i, st.tool, st.args, res.Content)
				case st.wantErr != "" && (!res.IsError || !strings.Contains(res.Content, st.wantErr)):
					t.Fatalf("step %d %s %s: want an error with %q, got:\n%s", i, st.tool, st.args, st.wantErr, res.Content)
				}
			}
		})
	}
}

// TestNoTrackerNoCheck: without a tracker (a single `tinyelf tool` call),
// Write and Edit work on files never read.
func TestNoTrackerNoCheck(t *testing.T) {
	t.Parallel()
	ws, _ := newTestWorkspace(t, map[string]string{"a.txt": "alpha\n"})
	if res := execTool(t, NewEdit(ws), `{"path":"a.txt","old_string":"alpha","new_string":"beta"}`); res.IsError {
		t.Fatalf("Edit: %s", res.Content)
	}
	if res := execTool(t, NewWrite(ws), `{"path":"a.txt","content":"gamma"}`); res.IsError {
		t.Fatalf("Write: %s", res.Content)
	}
}

// markLog is a ReadRecorder that keeps what it is told.
type markLog struct {
	mu    sync.Mutex
	marks []ReadMark
}

func (l *markLog) RecordRead(m ReadMark) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.marks = append(l.marks, m)
}

// TestReadMarksSurviveReopen: a tracker with a recorder reports each read
// and write with the content's hash, and a fresh tracker seeded with those
// marks (a session reopened after a restart, where file identities and
// times are no evidence) lets the agent change what is unchanged since and
// refuses what changed, even when size and time were kept.
func TestReadMarksSurviveReopen(t *testing.T) {
	t.Parallel()
	ws, dir := newTestWorkspace(t, map[string]string{"same.txt": "alpha\n", "changed.txt": "alpha\n", "unread.txt": "alpha\n"})
	first, log := NewReadTracker(), &markLog{}
	first.SetRecorder(log)
	ws.TrackReads(first)
	for _, f := range []string{"same.txt", "changed.txt"} {
		if res := execTool(t, NewRead(ws), `{"path":"`+f+`"}`); res.IsError {
			t.Fatal(res.Content)
		}
	}
	if res := execTool(t, NewWrite(ws), `{"path":"mine.txt","content":"mine\n"}`); res.IsError {
		t.Fatal(res.Content)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	key := func(f string) string { p, _ := filepath.EvalSymlinks(filepath.Join(dir, f)); return p }
	want := []ReadMark{{key("same.txt"), sum("alpha\n"), 6}, {key("changed.txt"), sum("alpha\n"), 6}, {key("mine.txt"), sum("mine\n"), 5}}
	if !slices.Equal(log.marks, want) {
		t.Fatalf("marks %+v, want %+v", log.marks, want)
	}
	// Someone else changes changed.txt, keeping its size and time.
	p := filepath.Join(dir, "changed.txt")
	st, _ := os.Stat(p)
	if err := os.WriteFile(p, []byte("ALPHA\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(p, st.ModTime(), st.ModTime())

	reopened, err := OpenWorkspace(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	tr := NewReadTracker()
	tr.Seed(log.marks)
	reopened.TrackReads(tr)
	for _, tc := range []struct{ tool, args, wantErr string }{
		{"Edit", `{"path":"same.txt","old_string":"alpha","new_string":"beta"}`, ""},
		{"Edit", `{"path":"same.txt","old_string":"beta","new_string":"gamma"}`, ""}, // its own edit counts
		{"Edit", `{"path":"mine.txt","old_string":"mine","new_string":"ours"}`, ""},
		{"Edit", `{"path":"changed.txt","old_string":"ALPHA","new_string":"beta"}`, "modified since you last read it"},
		{"Write", `{"path":"changed.txt","content":"x"}`, "modified since you last read it"},
		{"Write", `{"path":"unread.txt","content":"x"}`, "you have not read it in this session"},
	} {
		tool := map[string]tools.Tool{"Edit": NewEdit(reopened), "Write": NewWrite(reopened)}[tc.tool]
		res := execTool(t, tool, tc.args)
		switch {
		case tc.wantErr == "" && res.IsError:
			t.Errorf("%s %s failed:\n%s", tc.tool, tc.args, res.Content)
		case tc.wantErr != "" && (!res.IsError || !strings.Contains(res.Content, tc.wantErr)):
			t.Errorf("%s %s: want an error with %q, got:\n%s", tc.tool, tc.args, tc.wantErr, res.Content)
		}
	}
}

// TestReadTrackerIsBounded: a session that reads more than MaxTrackedFiles
// files forgets the ones it saw longest ago, not the latest.
func TestReadTrackerIsBounded(t *testing.T) {
	t.Parallel()
	tr := NewReadTracker()
	var marks []ReadMark
	for i := range MaxTrackedFiles + 100 {
		marks = append(marks, ReadMark{Path: fmt.Sprintf("/w/f%05d", i), Hash: "h", Size: 1})
	}
	tr.Seed(marks)
	tr.mu.Lock()
	n := len(tr.files)
	_, oldest := tr.files["/w/f00000"]
	_, newest := tr.files[marks[len(marks)-1].Path]
	tr.mu.Unlock()
	if n > MaxTrackedFiles || oldest || !newest {
		t.Errorf("%d files tracked (oldest kept: %v, newest kept: %v); want at most %d, the newest", n, oldest, newest, MaxTrackedFiles)
	}
}
