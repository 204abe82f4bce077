package sessions

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotDatabase is returned (wrapped) by Open when the file at the path is
// not an SQLite database, is one too damaged to read, or is another
// application's database. The file is left as it was.
var ErrNotDatabase = errors.New("not a readable SQLite database")

// ErrSchemaTooNew is returned (wrapped) by Open when the database was
// written by a newer TinyElf whose schema this build does not know.
var ErrSchemaTooNew = errors.New("database schema is newer than this build")

//go:embed migrations/*.sql
var migrationFS embed.FS

// connRole says what a pool is for: one writer connection, or readers.
type connRole int

const (
	roleWriter connRole = iota
	roleReader
	// roleCheckpointer copies the write-ahead log into the database file
	// in the background (Store.checkpoint), off the writes' path.
	roleCheckpointer
)

// busyTimeoutMs is how long a statement waits for another process's lock
// (the CLI and the desktop app may share the file) before failing.
const busyTimeoutMs = 10_000

// readerConns is the size of the reader pool: WAL lets readers run beside
// the writer and each other.
const readerConns = 4

// sqliteHeader starts every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// connect opens a pool on the database file at path. It is the one place
// pragmas are set: they go in the DSN so every connection the pool opens
// gets them. The writer pool has a single connection and begins its
// transactions with BEGIN IMMEDIATE, so a write never has to upgrade a read
// lock (which fails at once under WAL when another process wrote); readers
// are query_only.
func connect(dbPath string, role connRole) (*sql.DB, error) {
	abs, err := filepath.Abs(dbPath)
	if err != nil {
		return nil, fmt.Errorf("resolve database path %s: %w", dbPath, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMs))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	switch role {
	case roleWriter:
		q.Add("_pragma", "journal_mode(WAL)")
		// No checkpoint inside a commit (with its fsyncs): the store runs
		// them in the background after writes.
		q.Add("_pragma", "wal_autocheckpoint(0)")
		// A burst of writes between two checkpoints grows the log file; it
		// is cut back to this size when the log starts over.
		q.Add("_pragma", "journal_size_limit(16777216)")
		q.Set("_txlock", "immediate")
	case roleReader:
		q.Add("_pragma", "query_only(1)")
	}
	// A file: URI with the path escaped, so that '?', '#' and '%' in a
	// directory name stay part of the name.
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letters: file:///C:/...
	}
	dsn := (&url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}).String()
	if !strings.HasPrefix(dsn, "file://") {
		dsn = "file://" + strings.TrimPrefix(dsn, "file:")
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", dbPath, err)
	}
	if role != roleReader {
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
	} else {
		db.SetMaxOpenConns(readerConns)
		db.SetMaxIdleConns(readerConns)
	}
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// checkHeader refuses a file that exists, is not empty and does not start
// with the SQLite header, before SQLite touches it.
func checkHeader(dbPath string) error {
	f, err := os.Open(dbPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open database %s: %w", dbPath, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("open database %s: %w", dbPath, err)
	}
	if st.IsDir() {
		return fmt.Errorf("open database %s: is a directory", dbPath)
	}
	if st.Size() == 0 {
		return nil
	}
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
		return &DamagedError{Path: dbPath, Err: fmt.Errorf("%w: it does not start as an SQLite database does", ErrNotDatabase)}
	}
	return nil
}

// DamagedError says that the session database file is damaged, or is not
// an SQLite database at all, and what the user can do about it. It wraps
// ErrNotDatabase and the error SQLite gave. Open and every Store method
// return it for such files, so the message always names the file.
type DamagedError struct {
	// Path is the database file.
	Path string
	// Err is what was found wrong.
	Err error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("sessions database %s is damaged (%s); move it aside to start fresh, or restore a backup", e.Path, damageCause(e.Err))
}

// Unwrap returns ErrNotDatabase and the cause.
func (e *DamagedError) Unwrap() []error { return []error{ErrNotDatabase, e.Err} }

var sqliteCode = regexp.MustCompile(`\s*\(\d+\)$`)

// damageCause is SQLite's own words for the damage ("database disk image
// is malformed"), without its error number, or else what was found.
func damageCause(err error) string {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return sqliteCode.ReplaceAllString(se.Error(), "")
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ErrNotDatabase.Error()+": "); i >= 0 {
		msg = msg[i+len(ErrNotDatabase.Error())+2:]
	}
	return msg
}

// explain turns an error that says the file is damaged into a
// DamagedError naming the file and what to do; other errors pass as they
// are. Exported Store methods defer it.
func (s *Store) explain(err *error) {
	if *err == nil || !errors.Is(*err, ErrNotDatabase) || errors.Is(*err, errForeign) {
		return
	}
	var d *DamagedError
	if errors.As(*err, &d) {
		return
	}
	*err = &DamagedError{Path: s.path, Err: *err}
}

// errForeign marks another application's database: not damaged, not ours.
var errForeign = errors.New("it belongs to another application")

// classify marks SQLite's "corrupt" and "not a database" errors with
// ErrNotDatabase so callers can tell a damaged file from other failures.
func classify(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %w", ErrNotDatabase, err)
		}
	}
	return err
}

// checkNotForeign refuses a database that has tables but no
// schema_version rows: it belongs to some other application.
func checkNotForeign(ctx context.Context, q querier) error {
	var ours, others int
	err := q.QueryRowContext(ctx, `SELECT
		COUNT(*) FILTER (WHERE name = 'schema_version'),
		COUNT(*) FILTER (WHERE name <> 'schema_version' AND name NOT LIKE 'sqlite_%')
		FROM sqlite_schema`).Scan(&ours, &others)
	if err != nil {
		return fmt.Errorf("read schema: %w", classify(err))
	}
	if others > 0 && ours == 0 {
		return fmt.Errorf("%w: %w (it holds %d tables of its own); move it aside, or set TINYELF_HOME to another folder", ErrNotDatabase, errForeign, others)
	}
	if ours == 1 {
		var n int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_version`).Scan(&n); err != nil {
			return fmt.Errorf("read schema version: %w", classify(err))
		}
		if n == 0 && others > 0 {
			return fmt.Errorf("%w: %w (it holds %d tables of its own); move it aside, or set TINYELF_HOME to another folder", ErrNotDatabase, errForeign, others)
		}
	}
	return nil
}

// migration is one embedded schema step.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded migrations in version order. Their file
// names start with the version number: 0001_init.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, fmt.Errorf("read embedded migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version number", e.Name())
		}
		b, err := migrationFS.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share version %d", ms[i-1].name, ms[i].name, ms[i].version)
		}
	}
	return ms, nil
}

// BackupPath is where Open copies the database at dbPath before it
// upgrades the schema from version from: beside it, named after that
// version ("sessions.schema-4.backup.db"), so an older TinyElf can still
// open the copy.
func BackupPath(dbPath string, from int) string {
	ext := filepath.Ext(dbPath)
	return fmt.Sprintf("%s.schema-%d.backup%s", strings.TrimSuffix(dbPath, ext), from, ext)
}

// schemaVersion reads the highest applied migration (0 for a new file).
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'schema_version'`).Scan(&n)
	if err != nil || n == 0 {
		return 0, classify(err)
	}
	var v int
	err = db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v)
	return v, classify(err)
}

// backupBeforeMigration copies a database whose schema is at version
// from (older than this build's) to BackupPath, unless a copy of that
// version is there already: a second start after an interrupted upgrade
// keeps the first copy, which is the older data. The copy is SQLite's own
// (VACUUM INTO), consistent even with a write-ahead log beside the file;
// it is written under a temporary name and renamed, so a crash never
// leaves a half copy under the backup's name.
func backupBeforeMigration(ctx context.Context, db *sql.DB, dbPath string, from int) error {
	dst := BackupPath(dbPath, from)
	if _, err := os.Lstat(dst); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("back up the sessions database before upgrading its schema: %w", err)
	}
	// An empty file of a name of its own: VACUUM INTO writes into an
	// empty file, and two processes upgrading at once do not share it.
	f, err := os.CreateTemp(filepath.Dir(dst), filepath.Base(dst)+".*.partial")
	if err != nil {
		return fmt.Errorf("back up the sessions database before upgrading its schema: %w", err)
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmp); err != nil {
		return fmt.Errorf("back up the sessions database to %s before upgrading its schema from version %d (nothing was changed; free some disk space or move the file aside): %w", dst, from, classify(err))
	}
	// A link never replaces a copy another process made meanwhile.
	if err := os.Link(tmp, dst); err != nil {
		if _, statErr := os.Lstat(dst); statErr == nil {
			return nil
		}
		if err := os.Rename(tmp, dst); err != nil { // no hard links on this file system
			return fmt.Errorf("back up the sessions database to %s: %w", dst, err)
		}
	}
	return nil
}

// migrate brings the schema of the database at dbPath up to date in one
// transaction: the migrations newer than schema_version's highest row are
// applied and recorded. A database that has a schema already is copied
// aside first (backupBeforeMigration); a new one is not. Running it again
// is a no-op; a database from a newer build is refused.
func migrate(ctx context.Context, db *sql.DB, dbPath string) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if from, err := schemaVersion(ctx, db); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	} else if from > 0 && from < ms[len(ms)-1].version {
		if err := backupBeforeMigration(ctx, db, dbPath, from); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", classify(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch('subsec') * 1000)
	)`); err != nil {
		return fmt.Errorf("create schema_version: %w", classify(err))
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", classify(err))
	}
	if current == 0 {
		if err := checkNotForeign(ctx, tx); err != nil {
			return err
		}
	}
	if latest := ms[len(ms)-1].version; current > latest {
		return fmt.Errorf("%w: the database is at version %d, this build knows up to %d", ErrSchemaTooNew, current, latest)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, classify(err))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, m.version); err != nil {
			return fmt.Errorf("record migration %s: %w", m.name, classify(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migrations: %w", classify(err))
	}
	return nil
}
