package api

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
)

// ListSessionsArgs pages and filters ListSessions.
type ListSessionsArgs struct {
	Limit     int    `json:"limit,omitempty"`
	Offset    int    `json:"offset,omitempty"`
	Trash     bool   `json:"trash,omitempty"` // only deleted sessions
	Workspace string `json:"workspace,omitempty"`
}

// SessionItem is a session in the list, with what the engine is doing in
// it now (so a reloaded page shows running sessions and waiting approvals).
type SessionItem struct {
	sessions.Session
	Running bool     `json:"running"`
	Pending []string `json:"pending"`
}

// ListSessions returns top-level sessions, most recently updated first
// (paged by Limit and Offset), followed by the subagent sessions below
// them (parentId says where each belongs). A subagent's session leaves the
// list with its parent's. The trash lists every deleted session.
func (s *Service) ListSessions(ctx context.Context, a ListSessionsArgs) ([]SessionItem, error) {
	o := sessions.ListOptions{Limit: a.Limit, Offset: a.Offset, Workspace: a.Workspace, TopLevel: !a.Trash}
	if a.Trash {
		o.Deleted = sessions.OnlyDeleted
	}
	list, err := s.store.List(ctx, o)
	if err != nil {
		return []SessionItem{}, mapErr(err)
	}
	if !a.Trash && len(list) > 0 {
		ids := make([]string, len(list))
		for i, sess := range list {
			ids[i] = sess.ID
		}
		below, err := s.store.Descendants(ctx, ids)
		if err != nil {
			return []SessionItem{}, mapErr(err)
		}
		list = append(list, below...)
	}
	out := make([]SessionItem, len(list))
	for i, sess := range list {
		out[i] = SessionItem{Session: sess, Running: s.engine.Running(sess.ID), Pending: s.engine.Pending(sess.ID)}
	}
	return out, nil
}

// SessionView is one session with its history, as the chat shows it.
type SessionView struct {
	Session  sessions.Session     `json:"session"`
	Messages []sessions.UIMessage `json:"messages"`
	Running  bool                 `json:"running"`
	// Pending lists the call IDs waiting for an approval.
	Pending []string `json:"pending"`
	// ContextWindow is the model's window and ContextUsed what the last
	// model call filled of it (both in tokens), for the context gauge.
	ContextWindow int `json:"contextWindow"`
	ContextUsed   int `json:"contextUsed"`
	// ToolTokens and IndexTokens estimate what the tool definitions and
	// the deferred tools' index took of the last model call; ToolsSent and
	// ToolsDeferred count them (all 0 before the first call).
	ToolTokens    int `json:"toolTokens"`
	IndexTokens   int `json:"indexTokens"`
	ToolsSent     int `json:"toolsSent"`
	ToolsDeferred int `json:"toolsDeferred"`
}

// IDArgs names a session.
type IDArgs struct {
	ID string `json:"id"`
}

// GetSession returns a session with its messages.
func (s *Service) GetSession(ctx context.Context, a IDArgs) (SessionView, error) {
	sess, err := s.store.Get(ctx, a.ID)
	if err != nil {
		return SessionView{}, mapErr(err)
	}
	msgs, err := s.store.UIMessages(ctx, a.ID)
	if err != nil {
		return SessionView{}, mapErr(err)
	}
	if msgs == nil {
		msgs = []sessions.UIMessage{}
	}
	v := SessionView{Session: sess, Messages: msgs, Running: s.engine.Running(a.ID), Pending: s.engine.Pending(a.ID)}
	v.ContextWindow = llm.ContextWindow(sess.Model)
	if p, ok := s.settings.Get().WithEnvironment(s.opts.Getenv).Provider(sess.Provider); ok && p.ContextWindow > 0 {
		v.ContextWindow = p.ContextWindow
	}
	req, err := s.store.LastModelRequest(ctx, a.ID)
	if err != nil {
		return SessionView{}, mapErr(err)
	}
	if req != nil {
		v.ToolTokens, v.IndexTokens, v.ToolsSent, v.ToolsDeferred = req.ToolTokens, req.IndexTokens, len(req.Tools), len(req.Index)
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := msgs[i].Usage; u != nil {
			v.ContextUsed = u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens
			break
		}
		if msgs[i].Kind == sessions.UICompaction {
			break // the summary replaced what was counted before it
		}
	}
	return v, nil
}

// CreateSessionArgs starts a session; empty fields take the defaults.
type CreateSessionArgs struct {
	Workspace string `json:"workspace"`
	Mode      string `json:"mode,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Provider  string `json:"provider,omitempty"`
	Model     string `json:"model,omitempty"`
}

// CreateSession starts a session in a workspace folder and remembers the
// folder as the last one used.
func (s *Service) CreateSession(ctx context.Context, a CreateSessionArgs) (sessions.Session, error) {
	ws := strings.TrimSpace(a.Workspace)
	if ws == "" {
		ws = s.settings.Get().LastWorkspace
	}
	if ws == "" {
		return sessions.Session{}, invalidf("choose a workspace folder first")
	}
	if strings.HasPrefix(ws, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			ws = filepath.Join(home, ws[2:])
		}
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return sessions.Session{}, invalidf("workspace %q: %v", ws, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return sessions.Session{}, invalidf("workspace %s is not an existing folder", abs)
	}
	mode := engine.Mode("")
	if a.Mode != "" {
		if mode, err = engine.ParseMode(a.Mode); err != nil {
			return sessions.Session{}, invalidf("%v", err)
		}
	}
	id, err := s.engine.NewSession(ctx, abs, mode, a.Agent, a.Provider, a.Model)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	_ = s.settings.Update(func(st *config.Settings) error { st.LastWorkspace = abs; return nil })
	sess, err := s.store.Get(ctx, id)
	return sess, mapErr(err)
}

// SendArgs is a user message for a session.
type SendArgs struct {
	SessionID string `json:"sessionId"`
	Text      string `json:"text"`
}

// SendMessage starts the agent on the user's message and returns at once;
// progress arrives as events. It fails with CodeBusy while a turn runs. A
// message that is a slash command ("/review src", "/mcp__srv__prompt x=1")
// runs the command: its rendered text starts the turn, and its
// allowed-tools apply for that turn.
func (s *Service) SendMessage(ctx context.Context, a SendArgs) (struct{}, error) {
	if strings.TrimSpace(a.Text) == "" {
		return struct{}{}, invalidf("the message is empty")
	}
	if _, err := s.store.Get(ctx, a.SessionID); err != nil {
		return struct{}{}, mapErr(err)
	}
	text, opts, err := s.expandCommand(ctx, a.SessionID, a.Text)
	if err != nil {
		return struct{}{}, err
	}
	return struct{}{}, mapErr(s.engine.SendWith(a.SessionID, text, opts))
}

// SessionArgs names a session by its sessionId.
type SessionArgs struct {
	SessionID string `json:"sessionId"`
}

// Cancel stops a session's running turn.
func (s *Service) Cancel(_ context.Context, a SessionArgs) (struct{}, error) {
	s.engine.Cancel(a.SessionID)
	return struct{}{}, nil
}

// ApproveArgs answers an approval request.
type ApproveArgs struct {
	SessionID string `json:"sessionId"`
	CallID    string `json:"callId"`
	Decision  string `json:"decision"` // allow_once | allow_always | deny
	Reason    string `json:"reason,omitempty"`
}

// Approve answers a pending approval.
func (s *Service) Approve(_ context.Context, a ApproveArgs) (struct{}, error) {
	d, err := engine.ParseDecision(a.Decision)
	if err != nil {
		return struct{}{}, invalidf("%v", err)
	}
	if err := s.engine.Answer(a.SessionID, a.CallID, engine.ApprovalAnswer{Decision: d, Reason: a.Reason}); err != nil {
		return struct{}{}, notFoundf("%v", err)
	}
	return struct{}{}, nil
}

// SetModeArgs changes a session's permission mode.
type SetModeArgs struct {
	SessionID string `json:"sessionId"`
	Mode      string `json:"mode"`
}

// SetMode changes a session's permission mode from its next turn on.
func (s *Service) SetMode(ctx context.Context, a SetModeArgs) (sessions.Session, error) {
	mode, err := engine.ParseMode(a.Mode)
	if err != nil {
		return sessions.Session{}, invalidf("%v", err)
	}
	_, err = s.store.Append(ctx, a.SessionID, sessions.NewEvent(sessions.EventModeChanged, sessions.ModeChanged{Mode: string(mode)}))
	return s.changed(ctx, a.SessionID, err)
}

// changed returns a session as it is after a change, or the change's error.
func (s *Service) changed(ctx context.Context, id string, err error) (sessions.Session, error) {
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	sess, err := s.store.Get(ctx, id)
	return sess, mapErr(err)
}

// RenameArgs gives a session a title.
type RenameArgs struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// RenameSession sets a session's title ("" goes back to the automatic one).
func (s *Service) RenameSession(ctx context.Context, a RenameArgs) (sessions.Session, error) {
	return s.changed(ctx, a.ID, s.store.Rename(ctx, a.ID, strings.TrimSpace(a.Title)))
}

// DeleteSession moves a session to the trash (RestoreSession undoes it).
func (s *Service) DeleteSession(ctx context.Context, a IDArgs) (struct{}, error) {
	if s.engine.Running(a.ID) {
		s.engine.Cancel(a.ID)
	}
	s.direct.close(a.ID)
	s.builtin.close(a.ID)
	s.resources.Release(a.ID)
	return struct{}{}, mapErr(s.store.Delete(ctx, a.ID))
}

// RestoreSession brings a deleted session back.
func (s *Service) RestoreSession(ctx context.Context, a IDArgs) (sessions.Session, error) {
	return s.changed(ctx, a.ID, s.store.Restore(ctx, a.ID))
}

// ForkArgs names a point in a session: its events up to AtSeq are copied.
type ForkArgs struct {
	ID    string `json:"id"`
	AtSeq int64  `json:"atSeq"`
}

// ForkSession copies a session up to a message into a new session.
func (s *Service) ForkSession(ctx context.Context, a ForkArgs) (sessions.Session, error) {
	sess, err := s.store.Fork(ctx, a.ID, a.AtSeq)
	return sess, mapErr(err)
}

// ResendArgs replaces the user message at Seq with new text.
type ResendArgs struct {
	SessionID string `json:"sessionId"`
	Seq       int64  `json:"seq"`
	Text      string `json:"text"`
}

// ResendEdited implements edit-and-resend: it forks the session just before
// the edited user message and sends the new text in the fork, leaving the
// original conversation as it was.
func (s *Service) ResendEdited(ctx context.Context, a ResendArgs) (sessions.Session, error) {
	if strings.TrimSpace(a.Text) == "" {
		return sessions.Session{}, invalidf("the message is empty")
	}
	if a.Seq < 2 {
		return sessions.Session{}, invalidf("seq %d is not a user message", a.Seq)
	}
	fork, err := s.store.Fork(ctx, a.SessionID, a.Seq-1)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	if err := s.engine.Send(fork.ID, a.Text); err != nil {
		return fork, mapErr(err)
	}
	return fork, nil
}

// ExportArgs asks for a session in a format.
type ExportArgs struct {
	ID     string `json:"id"`
	Format string `json:"format"` // "markdown" (default) or "json"
}

// Exported is a session rendered for saving.
type Exported struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	Content  string `json:"content"`
}

var unsafeFilename = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

// ExportSession renders a session as Markdown or as JSON (the full event
// log, which ImportSession reads back).
func (s *Service) ExportSession(ctx context.Context, a ExportArgs) (Exported, error) {
	sess, err := s.store.Get(ctx, a.ID)
	if err != nil {
		return Exported{}, mapErr(err)
	}
	var buf bytes.Buffer
	out := Exported{}
	base := strings.TrimSpace(unsafeFilename.ReplaceAllString(sess.Title, "-"))
	if base == "" {
		base = "session-" + sess.ID
	}
	switch a.Format {
	case "", "markdown", "md":
		err = s.store.ExportMarkdown(ctx, a.ID, &buf)
		out.Filename, out.MimeType = base+".md", "text/markdown"
	case "json":
		err = s.store.ExportJSON(ctx, a.ID, &buf)
		out.Filename, out.MimeType = base+".json", "application/json"
	default:
		return Exported{}, invalidf("unknown export format %q (want markdown or json)", a.Format)
	}
	if err != nil {
		return Exported{}, mapErr(err)
	}
	out.Content = buf.String()
	return out, nil
}

// ImportArgs carries a JSON export.
type ImportArgs struct {
	Content string `json:"content"`
}

// ImportSession reads a JSON export back as a session.
func (s *Service) ImportSession(ctx context.Context, a ImportArgs) (sessions.Session, error) {
	sess, err := s.store.Import(ctx, strings.NewReader(a.Content))
	if err != nil {
		return sessions.Session{}, invalidf("import: %v", err)
	}
	return sess, nil
}

// SearchArgs is a full-text query across sessions.
type SearchArgs struct {
	Query  string `json:"query"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
}

// Search finds messages across sessions.
func (s *Service) Search(ctx context.Context, a SearchArgs) ([]sessions.SearchHit, error) {
	if strings.TrimSpace(a.Query) == "" {
		return []sessions.SearchHit{}, nil
	}
	hits, err := s.store.Search(ctx, a.Query, sessions.SearchOptions{Limit: a.Limit, Offset: a.Offset})
	if hits == nil {
		hits = []sessions.SearchHit{}
	}
	if err != nil {
		return hits, fmt.Errorf("search: %w", err)
	}
	return hits, nil
}
