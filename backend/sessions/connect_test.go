package sessions

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenSetsPragmasOnEveryConnection(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	ctx := context.Background()
	check := func(label string, q querier, pragma, want string) {
		t.Helper()
		var got string
		if err := q.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatalf("%s: PRAGMA %s: %v", label, pragma, err)
		}
		if got != want {
			t.Errorf("%s: PRAGMA %s = %q, want %q", label, pragma, got, want)
		}
	}
	// Hold several reader connections at once so the pool opens more than
	// one, and check each.
	var conns []querier
	for i := 0; i < readerConns; i++ {
		c, err := s.r.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	wc, err := s.w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("writer", wc, "journal_mode", "wal")
	check("writer", wc, "synchronous", "1")
	check("writer", wc, "foreign_keys", "1")
	check("writer", wc, "busy_timeout", "10000")
	wc.Close()
	for i, c := range conns {
		label := "reader " + string(rune('0'+i))
		check(label, c, "journal_mode", "wal")
		check(label, c, "synchronous", "1")
		check(label, c, "foreign_keys", "1")
		check(label, c, "busy_timeout", "10000")
		check(label, c, "query_only", "1")
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	for i := 0; i < 3; i++ {
		s, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open #%d: %v", i, err)
		}
		if i == 0 {
			mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
		}
		var versions, sessions int
		if err := s.r.QueryRow(`SELECT COUNT(*) FROM schema_version`).Scan(&versions); err != nil {
			t.Fatal(err)
		}
		if err := s.r.QueryRow(`SELECT COUNT(*) FROM sessions`).Scan(&sessions); err != nil {
			t.Fatal(err)
		}
		ms, _ := migrations()
		if versions != len(ms) || sessions != 1 {
			t.Errorf("open #%d: %d schema_version rows (want %d), %d sessions (want 1)", i, versions, len(ms), sessions)
		}
		s.Close()
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.db")
	s := openStoreAt(t, path)
	if _, err := s.w.Exec(`INSERT INTO schema_version (version) VALUES (9999)`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(context.Background(), path); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenPathWithSpecialCharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my data?x=1#frag %41 日本")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sessions.db")
	s := openStoreAt(t, path)
	if s.Path() != path {
		t.Errorf("Path() = %q", s.Path())
	}
	mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database not at the given path: %v", err)
	}
}

func TestOpenRejectsBadFiles(t *testing.T) {
	t.Parallel()
	garbage := make([]byte, 8192)
	rand.Read(garbage)
	corrupt := append(append([]byte{}, sqliteHeader...), garbage...)
	tests := []struct {
		name    string
		content []byte
	}{
		{"text file", []byte("hello, I am a note\n")},
		{"random bytes", garbage},
		{"short", []byte("SQL")},
		{"SQLite header then garbage", corrupt},
		{"JSON", []byte(`{"sessions":[]}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "sessions.db")
			if err := os.WriteFile(path, tt.content, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(context.Background(), path)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded on a file that is not a session database")
			}
			if !errors.Is(err, ErrNotDatabase) {
				t.Errorf("Open error = %v, want one wrapping ErrNotDatabase", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			got, _ := os.ReadFile(path)
			if !bytes.Equal(got, tt.content) {
				t.Error("the file was changed")
			}
		})
	}
}

func TestOpenRefusesAnotherApplicationsDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	if s, err := Open(context.Background(), path); !errors.Is(err, ErrNotDatabase) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Open = %v, want ErrNotDatabase", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the other application's file was changed")
	}
}

func TestIntegrityCheckFindsAStaleSearchIndex(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	for i := 0; i < 40; i++ { // enough to make FTS5 merge segments
		mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: "東京で会議 " + strings.Repeat("x", i)}))
	}
	if err := s.IntegrityCheck(context.Background()); err != nil {
		t.Fatalf("IntegrityCheck on a sound file: %v", err)
	}
	// A row the index never saw, though its watermark says it holds it.
	if _, err := s.w.Exec(`INSERT INTO search_docs (session_id, seq, role, text) VALUES (?, 99, 'user', 'not indexed')`, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`UPDATE meta SET value = (SELECT MAX(id) FROM search_docs) WHERE key = 'search_indexed'`); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(context.Background()); !errors.Is(err, ErrNotDatabase) {
		t.Errorf("IntegrityCheck = %v, want it to find the unindexed row", err)
	}
	if err := s.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(context.Background()); err != nil {
		t.Errorf("Rebuild did not repair the index: %v", err)
	}
}

// TestDamagedFileErrorsNameTheFile damages a table's pages in a database
// that still opens: reading it fails with an error that names the file and
// says what to do, as Open does for a file that is no database at all.
func TestDamagedFileErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openStoreAt(t, path)
	for i := range 50 {
		sess := mustCreate(t, s, SessionCreated{Workspace: "/w/" + strings.Repeat("x", 200), Mode: "default"})
		mustAppend(t, s, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: fmt.Sprintf("message %d %s", i, strings.Repeat("y", 500))}))
	}
	var root, pageSize int64
	if err := s.r.QueryRow(`SELECT rootpage FROM sqlite_schema WHERE name = 'sessions'`).Scan(&root); err != nil {
		t.Fatal(err)
	}
	if err := s.r.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte{0xA5}, int(pageSize))
	if _, err := f.WriteAt(garbage, (root-1)*pageSize); err != nil {
		t.Fatal(err)
	}
	f.Close()

	want := "sessions database " + path + " is damaged (database disk image is malformed); move it aside to start fresh, or restore a backup"
	s2, err := Open(context.Background(), path)
	if err == nil {
		defer s2.Close()
		_, err = s2.List(context.Background(), ListOptions{})
	}
	if err == nil || err.Error() != want || !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("error = %v\nwant    %s", err, want)
	}
}

func TestNotADatabaseMessage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	if err := os.WriteFile(path, []byte("hello, I am a note\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	var d *DamagedError
	if !errors.As(err, &d) || d.Path != path || !strings.Contains(err.Error(), "move it aside to start fresh") {
		t.Errorf("Open = %v, want a DamagedError naming %s and what to do", err, path)
	}
}
