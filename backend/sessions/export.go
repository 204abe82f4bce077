package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"tinyelf/backend/version"
)

// ExportFormat and ExportVersion identify a JSON export. Version 2 added
// Blobs; Import reads versions 1 and 2.
const (
	ExportFormat  = "tinyelf.session"
	ExportVersion = 2
)

// Export is the JSON export of a session: its list entry, for reading, its
// whole event log, which is what Import restores from, and the content of
// the files attached to its messages.
type Export struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// TinyElf is the version of the TinyElf that wrote the export
	// (version.Version()); Import does not need it.
	TinyElf string  `json:"tinyelf,omitempty"`
	Session Session `json:"session"`
	Events  []Event `json:"events"`
	// Blobs are the attachments' content by blob ID (base64 in JSON).
	Blobs map[string][]byte `json:"blobs,omitempty"`
}

// attachmentsOf lists the attachments the user messages of a log carry.
func attachmentsOf(events []Event) []Attachment {
	var out []Attachment
	for _, ev := range events {
		if ev.Type != EventUserMessage {
			continue
		}
		var m UserMessage
		if json.Unmarshal(ev.Data, &m) == nil {
			out = append(out, m.Attachments...)
		}
	}
	return out
}

// ExportJSON writes a session as an Export, indented.
func (s *Store) ExportJSON(ctx context.Context, id string, w io.Writer) (err error) {
	defer s.explain(&err)
	var exp Export
	err = s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if exp.Session, err = getSession(ctx, tx, id); err != nil {
			return err
		}
		exp.Events, err = readEvents(ctx, tx, id, 0)
		return err
	})
	if err != nil {
		return fmt.Errorf("export session %s as JSON: %w", id, err)
	}
	for _, a := range attachmentsOf(exp.Events) {
		for _, bid := range a.Blobs() {
			if _, done := exp.Blobs[bid]; done {
				continue
			}
			data, err := s.blobs.Get(bid)
			if errors.Is(err, ErrNoBlob) {
				continue // lost here already; the import says so where it is used
			}
			if err != nil {
				return fmt.Errorf("export session %s as JSON: %w", id, err)
			}
			if exp.Blobs == nil {
				exp.Blobs = map[string][]byte{}
			}
			exp.Blobs[bid] = data
		}
	}
	exp.Format, exp.Version, exp.TinyElf = ExportFormat, ExportVersion, version.Version()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(exp); err != nil {
		return fmt.Errorf("export session %s as JSON: %w", id, err)
	}
	return nil
}

// Import restores a session from an ExportJSON file: its events are
// appended (validated like any append) as a new session with the same log.
// The session keeps its exported ID when that ID is free here and gets a
// new one otherwise; the returned Session says which.
func (s *Store) Import(ctx context.Context, r io.Reader) (_ Session, err error) {
	defer s.explain(&err)
	var exp Export
	if err := json.NewDecoder(r).Decode(&exp); err != nil {
		return Session{}, fmt.Errorf("import session: decode: %w", err)
	}
	if exp.Format != ExportFormat || exp.Version < 1 || exp.Version > ExportVersion {
		return Session{}, fmt.Errorf("import session: %w: format %q version %d, want %q version 1 to %d",
			ErrInvalidEvent, exp.Format, exp.Version, ExportFormat, ExportVersion)
	}
	// The blobs first: a log whose attachments could not be stored would
	// show files it does not have. A blob is stored under the hash of its
	// own bytes, so a tampered one cannot stand in for another.
	for bid, data := range exp.Blobs {
		if BlobID(data) != bid {
			return Session{}, fmt.Errorf("import session: %w: attachment %s does not match its content", ErrInvalidEvent, bid)
		}
		if _, err := s.blobs.Put(data); err != nil {
			return Session{}, fmt.Errorf("import session: %w", err)
		}
	}
	if len(exp.Events) == 0 {
		return Session{}, fmt.Errorf("import session: %w: no events", ErrInvalidEvent)
	}
	for i, ev := range exp.Events {
		if ev.Seq != int64(i)+1 {
			return Session{}, fmt.Errorf("import session: %w: event %d has seq %d; seqs must run 1, 2, 3...", ErrInvalidEvent, i, ev.Seq)
		}
		exp.Events[i].SessionID = ""
	}
	id := exp.Session.ID
	if id == "" {
		id = newID()
	}
	var sess Session
	err = s.write(ctx, func(w *writeTx) error {
		var n int
		if err := w.tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM events WHERE session_id = ?`, id).Scan(&n); err != nil {
			return classify(err)
		}
		if n > 0 {
			id = newID()
		}
		var err error
		sess, _, err = w.append(id, exp.Events, true)
		return err
	})
	if err != nil {
		return Session{}, fmt.Errorf("import session: %w", err)
	}
	return sess, nil
}

// ExportMarkdown writes a session as a readable Markdown transcript: the
// UI history with tool calls, results, approvals, errors and compactions.
// Times are UTC. The output depends only on the log.
func (s *Store) ExportMarkdown(ctx context.Context, id string, w io.Writer) (err error) {
	defer s.explain(&err)
	var (
		sess  Session
		items []UIMessage
	)
	err = s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if sess, err = getSession(ctx, tx, id); err != nil {
			return err
		}
		items, err = uiMessages(ctx, tx, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("export session %s as Markdown: %w", id, err)
	}
	ew := &errWriter{w: w}
	writeMarkdown(ew, sess, items)
	if ew.err != nil {
		return fmt.Errorf("export session %s as Markdown: %w", id, ew.err)
	}
	return nil
}

// errWriter keeps the first write error so the renderer can write freely.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

const mdTime = "2006-01-02 15:04:05 UTC"

func writeMarkdown(w *errWriter, sess Session, items []UIMessage) {
	title := sess.Title
	if title == "" {
		title = "Untitled session"
	}
	w.printf("# %s\n\n", title)
	w.printf("- Session: `%s`\n", sess.ID)
	if sess.ForkedFrom != "" {
		w.printf("- Forked from: `%s` at event %d\n", sess.ForkedFrom, sess.ForkedAtSeq)
	}
	field := func(name, v string) {
		if v != "" {
			w.printf("- %s: %s\n", name, v)
		}
	}
	field("Workspace", sess.Workspace)
	field("Agent", sess.Agent)
	field("Mode", sess.Mode)
	field("Model", strings.Trim(sess.Provider+" / "+sess.Model, " /"))
	w.printf("- Created: %s\n", sess.CreatedAt.UTC().Format(mdTime))
	w.printf("- Updated: %s\n", sess.UpdatedAt.UTC().Format(mdTime))
	u := sess.Usage
	w.printf("- Tokens: %d in, %d out", u.InputTokens, u.OutputTokens)
	if u.CacheReadTokens > 0 || u.CacheWriteTokens > 0 {
		w.printf(" (cache: %d read, %d written)", u.CacheReadTokens, u.CacheWriteTokens)
	}
	if u.CostUSD > 0 {
		w.printf(", $%.4f", u.CostUSD)
	}
	w.printf("\n")
	if sess.Deleted() {
		w.printf("- Deleted: %s\n", sess.DeletedAt.UTC().Format(mdTime))
	}
	w.printf("- Exported by: TinyElf %s\n", version.Version())
	for _, m := range items {
		at := m.Time.UTC().Format(mdTime)
		switch m.Kind {
		case UIUser:
			w.printf("\n## User · %s\n\n%s\n", at, strings.TrimSpace(m.Text))
			for i, a := range m.Attachments {
				if i == 0 {
					w.printf("\n")
				}
				w.printf("- Attached: %s (%s, %d bytes)", a.Name, a.MIME, a.Size)
				if a.Path != "" {
					w.printf(", saved at `%s`", a.Path)
				}
				w.printf("\n")
			}
		case UIModelChange:
			w.printf("\n*Model changed to %s · %s*\n", strings.Trim(m.Provider+" / "+m.Model, " /"), at)
		case UIAssistant:
			w.printf("\n## Assistant · %s\n", at)
			if m.Partial {
				w.printf("\n*(cut off)*\n")
			}
			if t := strings.TrimSpace(m.Text); t != "" {
				w.printf("\n%s\n", t)
			}
		case UITool:
			t := m.Tool
			w.printf("\n### Tool `%s` · %s\n\n", t.Name, t.Status)
			if t.Decision != "" {
				w.printf("Approval: %s", t.Decision)
				if t.DecidedBy != "" {
					w.printf(" (by %s)", t.DecidedBy)
				}
				w.printf("\n\n")
			}
			w.printf("%s", fenced("json", t.Arguments))
			if t.ResultSeq > 0 {
				label := "Result"
				if t.IsError {
					label = "Error"
				}
				if t.Truncated {
					label += " (truncated)"
				}
				w.printf("\n%s:\n\n%s", label, fenced("", t.Result))
			}
		case UIApproval:
			a := m.Approval
			w.printf("\n> **Approval asked** for `%s`", a.Name)
			if a.Suggestion != "" {
				w.printf(" (suggested rule: `%s`)", a.Suggestion)
			}
			w.printf("\n")
			if len(a.Warnings) > 0 {
				w.printf(">\n")
			}
			for _, warn := range a.Warnings {
				w.printf("> - %s\n", oneLine(warn))
			}
			if a.Decision == "" {
				w.printf(">\n> Unanswered.\n")
			} else {
				w.printf(">\n> Answer: %s", a.Decision)
				if a.By != "" {
					w.printf(" by %s", a.By)
				}
				if a.Reason != "" {
					w.printf(": %s", a.Reason)
				}
				w.printf("\n")
			}
		case UIError:
			kind := ""
			if m.ErrorKind != "" {
				kind = " (" + m.ErrorKind + ")"
			}
			w.printf("\n> **Error**%s · %s: %s\n", kind, at, oneLine(m.Text))
		case UICompaction:
			c := m.Compaction
			w.printf("\n---\n\n*Context compacted · %s: events up to %d summarized (%d → %d tokens).*\n\n%s\n\n---\n",
				at, c.UpToSeq, c.TokensBefore, c.TokensAfter, quote(c.Summary))
		}
	}
}

// fenced puts text in a code fence longer than any backtick run inside it.
func fenced(lang, text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	text = strings.TrimRight(text, "\n")
	return fence + lang + "\n" + text + "\n" + fence + "\n"
}

func quote(text string) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
