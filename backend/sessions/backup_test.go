package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// downgradeTo makes the database at path look as a build whose last
// migration was version from left it: the later migrations' rows are gone
// (each of them after 0004 only adds data, so the tables stay as they
// were).
func downgradeTo(t *testing.T, path string, from int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		fmt.Sprintf(`DELETE FROM schema_version WHERE version > %d`, from),
		`DELETE FROM meta WHERE key = 'search_indexed'`, // 0005's row
		`PRAGMA wal_checkpoint(TRUNCATE)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func backupVersionAndSessions(t *testing.T, path string) (int, int) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v, n int
	if err := db.QueryRow(`SELECT MAX(version) FROM schema_version`).Scan(&v); err != nil {
		t.Fatalf("read the backup's schema version: %v", err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM sessions`).Scan(&n); err != nil {
		t.Fatalf("read the backup's sessions: %v", err)
	}
	return v, n
}

// TestOpenBacksUpBeforeUpgradingTheSchema: a database an older TinyElf left
// (schema 4) is copied aside, whole and openable, before this build
// upgrades it, once; a new database and an up-to-date one are not.
func TestOpenBacksUpBeforeUpgradingTheSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ms, _ := migrations()
	latest := ms[len(ms)-1].version
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions.db")

	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	}
	s.Close()
	if matches, _ := filepath.Glob(filepath.Join(dir, "*backup*")); len(matches) != 0 {
		t.Fatalf("a new database was backed up: %v", matches)
	}

	downgradeTo(t, path, 4)
	backup := BackupPath(path, 4)
	if want := filepath.Join(dir, "sessions.schema-4.backup.db"); backup != want {
		t.Fatalf("BackupPath = %s, want %s", backup, want)
	}
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open the old database: %v", err)
	}
	list, err := s.List(ctx, ListOptions{})
	if err != nil || len(list) != 3 {
		t.Fatalf("after the upgrade: %d sessions (%v), want 3", len(list), err)
	}
	if v, _ := schemaVersion(ctx, s.r); v != latest {
		t.Errorf("schema after the upgrade is %d, want %d", v, latest)
	}
	s.Close()
	v, n := backupVersionAndSessions(t, backup)
	if v != 4 || n != 3 {
		t.Errorf("backup at schema %d with %d sessions, want schema 4 with 3", v, n)
	}
	first, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}

	// Upgraded, it is not copied again; and a second interrupted upgrade
	// from the same version keeps the first copy.
	s = openStoreAt(t, path)
	mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	s.Close()
	downgradeTo(t, path, 4)
	openStoreAt(t, path).Close()
	again, _ := os.ReadFile(backup)
	if !bytes.Equal(first, again) {
		t.Error("the backup was written again")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "partial") {
			t.Errorf("a temporary copy was left behind: %s", e.Name())
		}
	}
}
