package fs

import (
	"os"
	"path/filepath"
	"strings"
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
