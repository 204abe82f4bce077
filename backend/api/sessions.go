package api

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
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

// SessionItem is a conversation in the list, with what the engine is doing
// in it now (so a reloaded page shows running sessions and waiting
// approvals). A conversation with edit-and-resend branches is one item:
// the root session (its title is the conversation's), updated when any of
// its versions was, running and waiting when any of them is.
type SessionItem struct {
	sessions.Session
	Running bool     `json:"running"`
	Pending []string `json:"pending"`
	// Versions are the sessions of the conversation (root first) when it
	// has branches; Open is the one to open, the one updated last.
	Versions []string `json:"versions,omitempty"`
	Open     string   `json:"open,omitempty"`
}

// ListSessions returns top-level conversations, most recently updated first
// (paged by Limit and Offset; a conversation's edit-and-resend branches are
// folded into one item), followed by the subagent sessions below them
// (parentId says where each belongs). A subagent's session leaves the list
// with its parent's. The trash lists every deleted session one by one.
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
	if !a.Trash {
		out = foldBranches(out)
	}
	return out, nil
}

// foldBranches makes one item of each conversation in a list sorted by
// update time, newest first: the root's, at the place of its newest
// version. A branch whose root is not in the list stands alone.
func foldBranches(list []SessionItem) []SessionItem {
	byID := make(map[string]*SessionItem, len(list))
	for i := range list {
		byID[list[i].ID] = &list[i]
	}
	rootOf := func(it *SessionItem) *SessionItem {
		for depth := 0; it.Branch && depth < len(list); depth++ {
			parent, ok := byID[it.ForkedFrom]
			if !ok {
				break
			}
			it = parent
		}
		return it
	}
	members := map[string][]*SessionItem{}
	for i := range list {
		r := rootOf(&list[i])
		members[r.ID] = append(members[r.ID], &list[i])
	}
	out := make([]SessionItem, 0, len(members))
	done := map[string]bool{}
	for i := range list {
		r := rootOf(&list[i])
		if done[r.ID] {
			continue
		}
		done[r.ID] = true
		group := members[r.ID]
		item := *r
		if len(group) > 1 {
			newest := &list[i] // the list is newest first
			item.UpdatedAt, item.Open = newest.UpdatedAt, newest.ID
			item.Pending = nil
			for _, m := range group {
				item.Running = item.Running || m.Running
				item.Pending = append(item.Pending, m.Pending...)
			}
			if item.Pending == nil {
				item.Pending = []string{}
			}
			slices.SortFunc(group, func(a, b *SessionItem) int {
				return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
			})
			for _, m := range group {
				item.Versions = append(item.Versions, m.ID)
			}
		}
		out = append(out, item)
	}
	return out
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
	// Conversation is set when the session is one version of a
	// conversation with edit-and-resend branches.
	Conversation *ConversationView `json:"conversation,omitempty"`
}

// ConversationView is what the chat shows of a conversation with branches:
// its title and root, its sessions, and the session's messages that have
// other versions (each with the session to open for every version).
type ConversationView struct {
	Root     string                 `json:"root"`
	Title    string                 `json:"title"`
	Sessions []string               `json:"sessions"`
	Points   []sessions.BranchPoint `json:"points"`
}

// conversationView returns the session's conversation, or nil when it has
// no branches.
func (s *Service) conversationView(ctx context.Context, id string) (*ConversationView, error) {
	conv, err := s.store.Conversation(ctx, id)
	if err != nil {
		return nil, err
	}
	if len(conv.Sessions) < 2 {
		return nil, nil
	}
	v := &ConversationView{Root: conv.Root.ID, Title: conv.Root.Title, Points: conv.Points}
	for _, m := range conv.Sessions {
		v.Sessions = append(v.Sessions, m.ID)
	}
	return v, nil
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
	if v.Conversation, err = s.conversationView(ctx, a.ID); err != nil {
		return SessionView{}, mapErr(err)
	}
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
	abs, err := s.resolveWorkspace(a.Workspace)
	if err != nil {
		return sessions.Session{}, err
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
	if err == nil && a.Model != "" { // chosen in the new chat's model picker
		s.rememberModel(sess.Provider, sess.Model)
	}
	return sess, mapErr(err)
}

// SendArgs is a user message for a session.
type SendArgs struct {
	SessionID string `json:"sessionId"`
	Text      string `json:"text"`
	// Attachments come from AddAttachment.
	Attachments []sessions.Attachment `json:"attachments,omitempty"`
}

// SendMessage starts the agent on the user's message and returns at once;
// progress arrives as events. It fails with CodeBusy while a turn runs, and
// refuses an image when the session's model takes none. A message that is
// a slash command ("/review src", "/mcp__srv__prompt x=1") runs the
// command: its rendered text starts the turn, and its allowed-tools apply
// for that turn.
func (s *Service) SendMessage(ctx context.Context, a SendArgs) (struct{}, error) {
	if strings.TrimSpace(a.Text) == "" && len(a.Attachments) == 0 {
		return struct{}{}, invalidf("the message is empty")
	}
	sess, err := s.store.Get(ctx, a.SessionID)
	if err != nil {
		return struct{}{}, mapErr(err)
	}
	if err := s.checkAttachments(ctx, sess, a.Attachments); err != nil {
		return struct{}{}, err
	}
	// The user works in this session now: its folder is TinyElf's MCP
	// root (servers that asked for roots hear of the change).
	if sess.Workspace != "" {
		s.userMCP.SetRoots([]string{sess.Workspace})
	}
	return struct{}{}, mapErr(s.engine.SendTyped(ctx, a.SessionID, engine.Input{Text: a.Text, Attachments: a.Attachments}))
}

// ExpandArgs is a message that may be a slash command.
type ExpandArgs struct {
	Text string `json:"text"`
}

// Expanded is what a message is sent as.
type Expanded struct {
	Text string `json:"text"`
}

// ExpandCommand returns what SendMessage would send for the text (a slash
// command expanded, other text as is), or the invalid error SendMessage
// would give, without sending anything: the UI checks a command this way
// before it starts a session for it.
func (s *Service) ExpandCommand(ctx context.Context, a ExpandArgs) (Expanded, error) {
	if strings.TrimSpace(a.Text) == "" {
		return Expanded{}, invalidf("the message is empty")
	}
	text, err := s.engine.ExpandPrompt(ctx, a.Text)
	return Expanded{Text: text}, mapErr(err)
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
	Decision  string `json:"decision"` // allow_once | allow_always | deny | cancel (an elicitation)
	Reason    string `json:"reason,omitempty"`
	// Content is an MCP elicitation form's values, with allow_once.
	Content map[string]any `json:"content,omitempty"`
}

// Approve answers a pending approval.
func (s *Service) Approve(_ context.Context, a ApproveArgs) (struct{}, error) {
	d, err := engine.ParseDecision(a.Decision)
	if err != nil {
		return struct{}{}, invalidf("%v", err)
	}
	if err := s.engine.Answer(a.SessionID, a.CallID, engine.ApprovalAnswer{Decision: d, Reason: a.Reason, Content: a.Content}); err != nil {
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

// RenameSession sets the title of a session's conversation ("" goes back
// to the automatic one): a branch renames its root.
func (s *Service) RenameSession(ctx context.Context, a RenameArgs) (sessions.Session, error) {
	conv, err := s.store.Conversation(ctx, a.ID)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	return s.changed(ctx, conv.Root.ID, s.store.Rename(ctx, conv.Root.ID, strings.TrimSpace(a.Title)))
}

// DeleteSession moves a session's conversation to the trash, its branches
// with it (RestoreSession undoes it).
func (s *Service) DeleteSession(ctx context.Context, a IDArgs) (struct{}, error) {
	conv, err := s.store.Conversation(ctx, a.ID)
	if err != nil {
		return struct{}{}, mapErr(err)
	}
	for _, m := range conv.Sessions {
		if s.engine.Running(m.ID) {
			s.engine.Cancel(m.ID)
		}
		s.engine.ReleaseSources(m.ID)
		if err := s.store.Delete(ctx, m.ID); err != nil {
			return struct{}{}, mapErr(err)
		}
	}
	return struct{}{}, nil
}

// RestoreSession brings a deleted conversation back, branches included.
func (s *Service) RestoreSession(ctx context.Context, a IDArgs) (sessions.Session, error) {
	conv, err := s.store.Conversation(ctx, a.ID)
	if err != nil {
		return sessions.Session{}, mapErr(err)
	}
	for _, m := range conv.Sessions {
		if err := s.store.Restore(ctx, m.ID); err != nil {
			return sessions.Session{}, mapErr(err)
		}
	}
	return s.changed(ctx, a.ID, nil)
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

// ResendEdited implements edit-and-resend: it branches the session just
// before the edited user message (sessions.Store.Branch) and sends the new
// text in the branch, leaving the original version as it was. The branch
// is another version of the same conversation: the list shows one item,
// the chat a switcher on the edited message.
func (s *Service) ResendEdited(ctx context.Context, a ResendArgs) (sessions.Session, error) {
	if strings.TrimSpace(a.Text) == "" {
		return sessions.Session{}, invalidf("the message is empty")
	}
	if a.Seq < 2 {
		return sessions.Session{}, invalidf("seq %d is not a user message", a.Seq)
	}
	fork, err := s.store.Branch(ctx, a.SessionID, a.Seq-1)
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
	if err != nil {
		return []sessions.SearchHit{}, fmt.Errorf("search: %w", err)
	}
	return s.dedupeBranchHits(ctx, hits), nil
}

// dedupeBranchHits keeps one hit for a message a conversation's branches
// share (they copy the history before the edit), named by the
// conversation's title.
func (s *Service) dedupeBranchHits(ctx context.Context, hits []sessions.SearchHit) []sessions.SearchHit {
	roots := map[string]sessions.Session{}
	rootOf := func(id string) (sessions.Session, bool) {
		if r, ok := roots[id]; ok {
			return r, true
		}
		conv, err := s.store.Conversation(ctx, id)
		if err != nil {
			return sessions.Session{}, false
		}
		roots[id] = conv.Root
		return conv.Root, true
	}
	out := []sessions.SearchHit{}
	seen := map[string]bool{}
	for _, h := range hits {
		if r, ok := rootOf(h.SessionID); ok {
			key := r.ID + "\x00" + string(h.Role) + "\x00" + h.Snippet
			if seen[key] {
				continue
			}
			seen[key] = true
			h.SessionTitle = r.Title
		}
		out = append(out, h)
	}
	return out
}
