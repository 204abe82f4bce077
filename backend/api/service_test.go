package api

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/notify"
	"tinyelf/backend/sessions"
)

type svcHarness struct {
	t         *testing.T
	svc       *Service
	srv       *llmtest.Server
	notes     *notify.Fake
	workspace string
	events    <-chan Event
}

func newSvc(t *testing.T, turns ...llmtest.Turn) *svcHarness {
	t.Helper()
	return newSvcWith(t, nil, turns...)
}

// newSvcWith is newSvc with the service's options edited first.
func newSvcWith(t *testing.T, edit func(*Options), turns ...llmtest.Turn) *svcHarness {
	t.Helper()
	h := &svcHarness{t: t, srv: llmtest.NewServer(t, turns...), notes: &notify.Fake{}}
	dir := t.TempDir()
	h.workspace = filepath.Join(dir, "ws")
	os.MkdirAll(h.workspace, 0o755)
	opts := Options{
		DataDir:  dir,
		Notifier: h.notes,
		Getenv:   func(string) string { return "" },
		Providers: func(p config.Provider) (llm.Provider, error) {
			return llm.New(engine.ProviderConfig(p), llm.WithRetryPolicy(llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
		},
		Version:          "test",
		NoKeyring:        true, // a developer's own keyring stays untouched
		Home:             "-",  // no user skills from the machine's home folder
		DefaultWorkspace: filepath.Join(dir, "Documents", "TinyElf"),
	}
	if edit != nil {
		edit(&opts)
	}
	var err error
	h.svc, err = New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.svc.Close() })
	var stop func()
	h.events, stop = h.svc.bus.Subscribe()
	t.Cleanup(stop)
	return h
}

func (h *svcHarness) addProvider() {
	h.t.Helper()
	_, err := h.svc.SaveProvider(context.Background(), SaveProviderArgs{Provider: config.Provider{
		Name: "fake", Kind: "openai", BaseURL: h.srv.URL, APIKey: "sk-test-123456789", Model: "test-model",
	}})
	if err != nil {
		h.t.Fatal(err)
	}
}

// waitFor reads events until one of type typ arrives for the session. For
// turn.end it goes on until the session is idle again (the live turn.state
// that follows the logged end), as the UI does, so the next SendMessage
// never meets a turn still winding up.
func (h *svcHarness) waitFor(sessionID, typ string) Event {
	h.t.Helper()
	timeout := time.After(15 * time.Second)
	var ended *Event
	for {
		select {
		case ev := <-h.events:
			if ev.SessionID != sessionID {
				continue
			}
			if ended != nil && ev.Type == engine.LiveTurnState {
				var st struct{ Running bool }
				if json.Unmarshal(ev.Data, &st) == nil && !st.Running {
					return *ended
				}
			}
			if ev.Type == typ && ended == nil {
				if typ != string(sessions.EventTurnEnd) {
					return ev
				}
				ended = &ev
			}
		case <-timeout:
			h.t.Fatalf("no %s event", typ)
		}
	}
}

func TestFirstRunState(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	st, _ := h.svc.State(context.Background(), struct{}{})
	if st.HasProvider || st.Version != "test" {
		t.Errorf("state %+v", st)
	}
	// No folder chosen: the chat starts in the default workspace, made now.
	sess, err := h.svc.CreateSession(context.Background(), CreateSessionArgs{})
	if err != nil || sess.Workspace != st.DefaultWorkspace || filepath.Base(sess.Workspace) != "TinyElf" {
		t.Fatalf("CreateSession without a folder = %+v, %v; want it in %s", sess, err, st.DefaultWorkspace)
	}
	if problem := folderProblem(sess.Workspace); problem != "" {
		t.Errorf("the default workspace was not created: %s", problem)
	}
	h.addProvider()
	if st, _ := h.svc.State(context.Background(), struct{}{}); !st.HasProvider {
		t.Error("provider not seen")
	}
}

func TestChatThroughTheService(t *testing.T) {
	t.Parallel()
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "Write", Arguments: `{"path":"hello.txt","content":"hi\n"}`}}},
		llmtest.Turn{Text: "Wrote hello.txt."},
	)
	h.addProvider()
	ctx := context.Background()
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	if sess.Mode != "default" || sess.Provider != "fake" || sess.Model != "test-model" {
		t.Errorf("new session %+v", sess)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "  "}); err == nil {
		t.Error("empty message accepted")
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "create hello.txt"}); err != nil {
		t.Fatal(err)
	}
	asked := h.waitFor(sess.ID, string(sessions.EventApprovalAsked))
	var a sessions.ApprovalAsked
	json.Unmarshal(asked.Data, &a)
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "again"}); !isCode(err, CodeBusy) {
		t.Errorf("send while running: %v", err)
	}
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	if !view.Running || len(view.Pending) != 1 || view.Pending[0] != a.CallID {
		t.Errorf("view while waiting: running=%v pending=%v", view.Running, view.Pending)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 1 || !list[0].Running || len(list[0].Pending) != 1 {
		t.Errorf("the list does not show the waiting approval: %+v", list)
	}
	if _, err := h.svc.Approve(ctx, ApproveArgs{SessionID: sess.ID, CallID: a.CallID, Decision: "maybe"}); !isCode(err, CodeInvalid) {
		t.Errorf("bad decision: %v", err)
	}
	if _, err := h.svc.Approve(ctx, ApproveArgs{SessionID: sess.ID, CallID: a.CallID, Decision: "allow_once"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if b, err := os.ReadFile(filepath.Join(h.workspace, "hello.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("file: %q %v", b, err)
	}
	view, _ = h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	var kinds []string
	for _, m := range view.Messages {
		kinds = append(kinds, string(m.Kind))
	}
	joined := strings.Join(kinds, ",")
	if !strings.Contains(joined, "user") || !strings.Contains(joined, "assistant") {
		t.Errorf("UI messages: %s", joined)
	}
	// The turn ended while the window was not focused: a notification.
	if sent := h.notes.Sent(); len(sent) == 0 {
		t.Error("no notification after the turn")
	}
}

func isCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func TestSessionManagement(t *testing.T) {
	t.Parallel()
	h := newSvc(t, llmtest.Turn{Text: "first answer"}, llmtest.Turn{Text: "edited answer"})
	h.addProvider()
	ctx := context.Background()
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "plan"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "find the banana"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))

	if s, err := h.svc.SetMode(ctx, SetModeArgs{SessionID: sess.ID, Mode: "acceptEdits"}); err != nil || s.Mode != "acceptEdits" {
		t.Errorf("SetMode: %+v %v", s, err)
	}
	if _, err := h.svc.SetMode(ctx, SetModeArgs{SessionID: sess.ID, Mode: "yolo"}); !isCode(err, CodeInvalid) {
		t.Errorf("bad mode: %v", err)
	}
	if s, _ := h.svc.RenameSession(ctx, RenameArgs{ID: sess.ID, Title: "Banana hunt"}); s.Title != "Banana hunt" {
		t.Errorf("rename: %+v", s)
	}
	hits, _ := h.svc.Search(ctx, SearchArgs{Query: "banana"})
	if len(hits) == 0 || hits[0].SessionID != sess.ID {
		t.Errorf("search: %+v", hits)
	}
	exp, err := h.svc.ExportSession(ctx, ExportArgs{ID: sess.ID})
	if err != nil || exp.Filename != "Banana hunt.md" || !strings.Contains(exp.Content, "find the banana") {
		t.Errorf("markdown export: %+v %v", exp, err)
	}
	jsonExp, _ := h.svc.ExportSession(ctx, ExportArgs{ID: sess.ID, Format: "json"})
	if _, err := h.svc.DeleteSession(ctx, IDArgs{ID: sess.ID}); err != nil {
		t.Fatal(err)
	}
	if list, _ := h.svc.ListSessions(ctx, ListSessionsArgs{}); len(list) != 0 {
		t.Errorf("deleted session still listed: %+v", list)
	}
	if trash, _ := h.svc.ListSessions(ctx, ListSessionsArgs{Trash: true}); len(trash) != 1 {
		t.Errorf("trash: %+v", trash)
	}
	if s, err := h.svc.RestoreSession(ctx, IDArgs{ID: sess.ID}); err != nil || s.Deleted() {
		t.Errorf("restore: %v", err)
	}
	imported, err := h.svc.ImportSession(ctx, ImportArgs{Content: jsonExp.Content})
	if err != nil || imported.ID == sess.ID || imported.Title != "Banana hunt" {
		t.Errorf("import: %+v %v", imported, err)
	}
	if _, err := h.svc.ImportSession(ctx, ImportArgs{Content: "not json"}); !isCode(err, CodeInvalid) {
		t.Errorf("bad import: %v", err)
	}

	// Edit-and-resend: a fork before the user message, with the new text.
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	var userSeq int64
	for _, m := range view.Messages {
		if m.Kind == "user" {
			userSeq = m.Seq
		}
	}
	fork, err := h.svc.ResendEdited(ctx, ResendArgs{SessionID: sess.ID, Seq: userSeq, Text: "find the apple"})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor(fork.ID, string(sessions.EventTurnEnd))
	fv, _ := h.svc.GetSession(ctx, IDArgs{ID: fork.ID})
	var texts []string
	for _, m := range fv.Messages {
		texts = append(texts, m.Text)
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "find the apple") || strings.Contains(all, "banana") || !strings.Contains(all, "edited answer") {
		t.Errorf("fork messages: %s", all)
	}
	if _, err := h.svc.GetSession(ctx, IDArgs{ID: "nope"}); !isCode(err, CodeNotFound) {
		t.Errorf("missing session: %v", err)
	}
}

func TestProviderSettings(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	h.srv.SetModels("model-a", "model-b")
	ctx := context.Background()
	h.addProvider()
	v, _ := h.svc.GetSettings(ctx, struct{}{})
	if len(v.Providers) != 1 || v.Providers[0].APIKey != "" || !v.Providers[0].APIKeySet || v.Providers[0].APIKeyHint != "…6789" || v.DefaultProvider != "fake" {
		t.Fatalf("settings view leaks or misses the key: %+v", v.Providers)
	}
	// Saving without a key keeps the stored one.
	if _, err := h.svc.SaveProvider(ctx, SaveProviderArgs{Provider: config.Provider{Name: "fake", Kind: "openai", BaseURL: h.srv.URL, Model: "model-b"}}); err != nil {
		t.Fatal(err)
	}
	if p, _ := h.svc.settings.Get().Provider("fake"); p.APIKey != "sk-test-123456789" || p.Model != "model-b" {
		t.Errorf("key lost on save: %+v", p)
	}
	res, _ := h.svc.TestProvider(ctx, TestProviderArgs{Name: "fake"})
	if !res.OK || len(res.Models) != 2 {
		t.Errorf("test connection: %+v", res)
	}
	bad := config.Provider{Name: "x", Kind: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}
	if res, _ := h.svc.TestProvider(ctx, TestProviderArgs{Provider: &bad}); res.OK || !strings.Contains(res.Message, "127.0.0.1:1") {
		t.Errorf("unreachable provider: %+v", res)
	}
	for _, p := range []config.Provider{{Name: "", Kind: "openai"}, {Name: "ok", Kind: "smoke-signals"}, {Name: "ok", Preset: "nope"}} {
		if _, err := h.svc.SaveProvider(ctx, SaveProviderArgs{Provider: p}); !isCode(err, CodeInvalid) {
			t.Errorf("SaveProvider(%+v): %v", p, err)
		}
	}
	if _, err := h.svc.DeleteProvider(ctx, NameArgs{Name: "fake"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.DeleteProvider(ctx, NameArgs{Name: "fake"}); !isCode(err, CodeNotFound) {
		t.Errorf("second delete: %v", err)
	}
	presets, _ := h.svc.Presets(ctx, struct{}{})
	if len(presets) < 8 {
		t.Errorf("%d presets", len(presets))
	}
}

func TestPreferencesAndRules(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	dark, off, ja := "dark", false, "ja"
	v, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Theme: &dark, Notifications: &off, Language: &ja})
	if err != nil || v.Theme != "dark" || v.Notifications || v.Language != "ja" {
		t.Errorf("preferences: %+v %v", v, err)
	}
	if h.svc.policy.Enabled() {
		t.Error("notifications still enabled in the policy")
	}
	for _, bad := range []PreferencesArgs{{Theme: ptr("neon")}, {Language: ptr("fr")}, {Mode: ptr("yolo")}, {ExecTimeoutSeconds: intPtr(0)}} {
		if _, err := h.svc.UpdatePreferences(ctx, bad); !isCode(err, CodeInvalid) {
			t.Errorf("%+v accepted: %v", bad, err)
		}
	}
	r, err := h.svc.AddRule(ctx, AddRuleArgs{Tool: "Bash", Pattern: "git status", Action: "allow"})
	if err != nil || r.ID == "" {
		t.Fatal(err)
	}
	if _, err := h.svc.AddRule(ctx, AddRuleArgs{Tool: "Bash", Action: "sometimes"}); !isCode(err, CodeInvalid) {
		t.Errorf("bad rule: %v", err)
	}
	if rules, _ := h.svc.ListRules(ctx, struct{}{}); len(rules) != 1 {
		t.Errorf("rules %+v", rules)
	}
	if _, err := h.svc.RemoveRule(ctx, IDOnly{ID: r.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.RemoveRule(ctx, IDOnly{ID: r.ID}); !isCode(err, CodeNotFound) {
		t.Errorf("second remove: %v", err)
	}
	h.svc.SetFocused(ctx, FocusArgs{Focused: true})
	if !h.svc.policy.Focused() {
		t.Error("focus not recorded")
	}
}

func ptr(s string) *string { return &s }
func intPtr(i int) *int    { return &i }

func TestCallDispatch(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	res, err := h.svc.Call(context.Background(), "ListFolders", json.RawMessage(`{"path":"`+h.workspace+`/.."}`))
	if err != nil || !strings.Contains(string(res), `"ws"`) {
		t.Errorf("ListFolders: %s %v", res, err)
	}
	if _, err := h.svc.Call(context.Background(), "Nope", nil); !isCode(err, CodeNotFound) {
		t.Errorf("unknown method: %v", err)
	}
	if _, err := h.svc.Call(context.Background(), "GetSession", json.RawMessage(`{"id":5}`)); !isCode(err, CodeInvalid) {
		t.Errorf("bad arguments: %v", err)
	}
}
