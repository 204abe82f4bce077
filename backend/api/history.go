package api

import (
	"context"
	"io"
	"path/filepath"

	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
)

// History is the session history alone, for the commands that read and
// export it (tinyelf sessions) without starting the engine or any MCP
// server. It is safe for concurrent use, also beside a running window;
// Close it when done.
type History struct {
	store *sessions.Store
}

// OpenHistory opens the session database of the data folder (default:
// DataDir()). A damaged file is named in the error, with what to do.
func OpenHistory(ctx context.Context, dataDir string) (*History, error) {
	if dataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		dataDir = dir
	}
	store, err := sessions.Open(ctx, filepath.Join(dataDir, SessionsFile))
	if err != nil {
		return nil, err
	}
	return &History{store: store}, nil
}

// HistoryListArgs pages List.
type HistoryListArgs struct {
	Limit int
	// Trash lists only deleted sessions.
	Trash bool
}

// List returns sessions, most recently updated first.
func (h *History) List(ctx context.Context, a HistoryListArgs) ([]sessions.Session, error) {
	o := sessions.ListOptions{Limit: a.Limit}
	if a.Trash {
		o.Deleted = sessions.OnlyDeleted
	}
	return h.store.List(ctx, o)
}

// ExportMarkdown writes a session's conversation as Markdown.
func (h *History) ExportMarkdown(ctx context.Context, id string, w io.Writer) error {
	return h.store.ExportMarkdown(ctx, id, w)
}

// ExportJSON writes a session's whole event log as JSON (what Import reads).
func (h *History) ExportJSON(ctx context.Context, id string, w io.Writer) error {
	return h.store.ExportJSON(ctx, id, w)
}

// Import reads a JSON export back as a new session.
func (h *History) Import(ctx context.Context, r io.Reader) (sessions.Session, error) {
	return h.store.Import(ctx, r)
}

// Search finds messages across sessions; snippets mark matches with
// <mark>…</mark> and are HTML-escaped.
func (h *History) Search(ctx context.Context, query string, limit int) ([]sessions.SearchHit, error) {
	return h.store.Search(ctx, query, sessions.SearchOptions{Limit: limit})
}

// Replay rebuilds a session's state from its log, up to uptoSeq (0: all).
func (h *History) Replay(ctx context.Context, id string, uptoSeq int64) (*sessions.ReplayState, error) {
	return h.store.Replay(ctx, id, uptoSeq)
}

// ReplayCapabilities rebuilds each model call's visible set of a session
// from its log and checks it against what was sent (as the method of the
// same name does).
func (h *History) ReplayCapabilities(ctx context.Context, id string) (*CapabilityReplay, error) {
	rep, err := h.store.ReplayCapabilities(ctx, id)
	return replayOf(rep), mapErr(err)
}

// Close closes the database.
func (h *History) Close() error { return h.store.Close() }
