package api

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/notify"
	"tinyelf/backend/sessions"
	"tinyelf/backend/usertools"
	"tinyelf/internal/testutil"
)

// pngHeader is enough of a PNG for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")

func TestListFoldersSaysWhatIsWrong(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	dir := t.TempDir()
	for _, d := range []string{"b", "A", ".hidden", ".git"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("x"), 0o644)

	got, err := h.svc.ListFolders(ctx, ListFoldersArgs{Path: dir})
	if err != nil || strings.Join(got.Folders, ",") != "A,b" || got.Hidden != 2 {
		t.Errorf("ListFolders = %+v, %v; want A,b and 2 hidden", got, err)
	}
	got, _ = h.svc.ListFolders(ctx, ListFoldersArgs{Path: dir, ShowHidden: true})
	if len(got.Folders) != 4 || got.Hidden != 0 {
		t.Errorf("with hidden: %+v", got)
	}
	got, err = h.svc.ListFolders(ctx, ListFoldersArgs{Path: filepath.Join(dir, "not", "yet"), Nearest: true})
	if err != nil || got.Path != dir {
		t.Errorf("Nearest of a folder not yet made = %+v, %v; want %s", got, err, dir)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing"): "There is no folder at " + filepath.Join(dir, "missing") + ".",
		file:                          file + " is a file, not a folder.",
	} {
		_, err := h.svc.ListFolders(ctx, ListFoldersArgs{Path: path})
		if err == nil || err.Error() != want || strings.Contains(err.Error(), "\n") {
			t.Errorf("ListFolders(%s) error = %v, want the one line %q", path, err, want)
		}
		if _, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: path}); err == nil || err.Error() != want {
			t.Errorf("CreateSession(%s) error = %v, want %q", path, err, want)
		}
	}
}

func TestRecentFolders(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	other := t.TempDir()
	gone := t.TempDir()
	for _, ws := range []string{gone, h.workspace, other} {
		if _, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: ws}); err != nil {
			t.Fatal(err)
		}
	}
	os.RemoveAll(gone)
	if _, err := h.svc.CreateSession(ctx, CreateSessionArgs{}); err != nil { // the default workspace
		t.Fatal(err)
	}
	got, err := h.svc.RecentFolders(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	// Newest first; the vanished folder and the default workspace (offered
	// apart) are left out. Creating in the default made it the last one used.
	if strings.Join(got, ",") != other+","+h.workspace {
		t.Errorf("RecentFolders = %v, want %s then %s", got, other, h.workspace)
	}
}

func TestModelPickerAndSwitch(t *testing.T) {
	t.Parallel()
	h := newSvc(t, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	h.srv.SetModels("test-model", "gpt-4o", "alpha-model")
	h.addProvider()
	ctx := context.Background()

	list, err := h.svc.ListModels(ctx, ListModelsArgs{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range list.Models {
		ids = append(ids, m.Model)
	}
	if strings.Join(ids, ",") != "test-model,alpha-model,gpt-4o" {
		t.Errorf("models = %v, want the provider's own model first, then its list sorted", ids)
	}
	if !list.Models[0].Default || list.Current.Model != "test-model" || list.Models[0].Images || !list.Models[2].Images {
		t.Errorf("list = %+v: want test-model the default and current, gpt-4o taking images", list)
	}
	listed := len(h.srv.Requests())
	if _, err := h.svc.ListModels(ctx, ListModelsArgs{}); err != nil || len(h.srv.Requests()) != listed {
		t.Errorf("a second listing asked the server again (%d requests, had %d): want the cache", len(h.srv.Requests()), listed)
	}

	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "first"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if _, err := h.svc.SetModel(ctx, SetModelArgs{SessionID: sess.ID, Provider: "nope", Model: "x"}); !isCode(err, CodeInvalid) {
		t.Errorf("SetModel to an unknown provider: %v", err)
	}
	switched, err := h.svc.SetModel(ctx, SetModelArgs{SessionID: sess.ID, Provider: "fake", Model: "alpha-model"})
	if err != nil || switched.Model != "alpha-model" {
		t.Fatalf("SetModel = %+v, %v", switched, err)
	}
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "second"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	reqs := h.srv.ChatRequests()
	if got := reqs[len(reqs)-1].Body["model"]; got != "alpha-model" {
		t.Errorf("the turn after the switch used %v, want alpha-model", got)
	}
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	found := false
	for _, m := range view.Messages {
		found = found || m.Kind == sessions.UIModelChange && m.Model == "alpha-model"
	}
	if !found {
		t.Error("the chat shows no model change")
	}
	list, _ = h.svc.ListModels(ctx, ListModelsArgs{SessionID: sess.ID})
	if list.Models[0].Model != "alpha-model" || !list.Models[0].Recent || list.Current.Model != "alpha-model" {
		t.Errorf("after the switch: %+v, want alpha-model first (recent) and current", list.Models[0])
	}
}

func TestAttachmentsThroughTheService(t *testing.T) {
	t.Parallel()
	h := newSvc(t, llmtest.Turn{Echo: true}, llmtest.Turn{Echo: true})
	h.addProvider()
	ctx := context.Background()
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})

	add := func(name string, data []byte) sessions.Attachment {
		t.Helper()
		a, err := h.svc.AddAttachment(ctx, AttachArgs{SessionID: sess.ID, Name: name, Data: data})
		if err != nil {
			t.Fatalf("AddAttachment(%s): %v", name, err)
		}
		return a
	}
	img := add("shot.png", pngHeader)
	notes := add("../notes.md", []byte("# Notes\nbuy milk\n"))
	doc := add("report.pdf", testutil.OnePagePDF("Quarterly figures"))
	big := add("huge.log", bytes.Repeat([]byte("log line\n"), MaxInlineTextBytes/8))
	bin := add("blob.bin", []byte{0, 1, 2, 3})
	for _, c := range []struct {
		a    sessions.Attachment
		kind string
		mime string
	}{
		{img, sessions.AttachImage, "image/png"},
		{notes, sessions.AttachText, "text/markdown"},
		{doc, sessions.AttachText, "application/pdf"},
		{big, sessions.AttachFile, "application/octet-stream"},
		{bin, sessions.AttachFile, "application/octet-stream"},
	} {
		if c.a.Kind != c.kind || (c.mime != "application/octet-stream" && c.a.MIME != c.mime) {
			t.Errorf("%s: kind %s mime %s, want %s %s", c.a.Name, c.a.Kind, c.a.MIME, c.kind, c.mime)
		}
	}
	if notes.Name != "notes.md" || doc.TextID == "" || doc.Pages != 1 {
		t.Errorf("notes %+v, doc %+v", notes, doc)
	}
	if want := filepath.Join(h.workspace, AttachmentsFolder, "huge.log"); big.Path != want {
		t.Errorf("large file saved at %q, want %q", big.Path, want)
	} else if b, _ := os.ReadFile(want); len(b) != int(big.Size) {
		t.Errorf("saved file has %d bytes, want %d", len(b), big.Size)
	}
	if _, err := h.svc.AddAttachment(ctx, AttachArgs{SessionID: sess.ID, Name: "big.png", Data: append(pngHeader, make([]byte, MaxImageBytes)...)}); !isCode(err, CodeInvalid) || !strings.Contains(err.Error(), "images up to 5.0 MB") {
		t.Errorf("an oversized image: %v", err)
	}

	// test-model takes no images: the message is refused with what to do.
	_, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "look", Attachments: []sessions.Attachment{img}})
	if !isCode(err, CodeInvalid) || !strings.Contains(err.Error(), "test-model does not take images") {
		t.Fatalf("image for a text-only model: %v", err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Attachments: []sessions.Attachment{notes, doc, big}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	text := requestTextOf(h.srv.ChatRequests()[0])
	for _, want := range []string{"buy milk", "Quarterly figures", "huge.log", "read it with the Read tool"} {
		if !strings.Contains(text, want) {
			t.Errorf("the model was not shown %q:\n%s", want, text)
		}
	}

	// With images on for the provider, the image goes as image content.
	yes := true
	p := config.Provider{Name: "fake", Kind: "openai", BaseURL: h.srv.URL, Model: "test-model", Images: &yes}
	if _, err := h.svc.SaveProvider(ctx, SaveProviderArgs{Provider: p}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "look", Attachments: []sessions.Attachment{img}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if imgs := h.srv.ChatRequests()[1].Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, pngHeader) {
		t.Errorf("images sent = %+v", imgs)
	}
	got, err := h.svc.GetAttachment(ctx, AttachmentArgs{ID: img.ID, MIME: img.MIME})
	if err != nil || got.MIME != "image/png" || !bytes.Equal(got.Data, pngHeader) {
		t.Errorf("GetAttachment = %+v, %v", got, err)
	}
	if _, err := h.svc.GetAttachment(ctx, AttachmentArgs{ID: "../../etc/passwd"}); !isCode(err, CodeNotFound) {
		t.Errorf("GetAttachment of a bad ID: %v", err)
	}
}

// requestTextOf is a recorded request's messages as text.
func requestTextOf(r llmtest.Request) string { return string(r.Raw) }

func TestRetryContinueRegenerate(t *testing.T) {
	t.Parallel()
	down := llmtest.Turn{Status: 500, ErrorMessage: "overloaded"}
	h := newSvc(t, down, down, llmtest.Turn{Text: "recovered"}, llmtest.Turn{Text: "and more"}, llmtest.Turn{Text: "another take"})
	h.addProvider()
	ctx := context.Background()
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "hello"})
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	view, _ := h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	if last := view.Messages[len(view.Messages)-1]; last.Kind != sessions.UIError || last.ErrorKind != "server" {
		t.Fatalf("last item %+v, want a server error", last)
	}
	if _, err := h.svc.RetryTurn(ctx, SessionArgs{SessionID: sess.ID}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	if _, err := h.svc.ContinueTurn(ctx, SessionArgs{SessionID: sess.ID}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	view, _ = h.svc.GetSession(ctx, IDArgs{ID: sess.ID})
	var answers []string
	users := 0
	for _, m := range view.Messages {
		switch m.Kind {
		case sessions.UIAssistant:
			answers = append(answers, m.Text)
		case sessions.UIUser:
			users++
		}
	}
	if strings.Join(answers, "|") != "recovered|and more" || users != 1 {
		t.Errorf("answers %v with %d user messages, want recovered|and more after one message", answers, users)
	}
	fork, err := h.svc.Regenerate(ctx, SessionArgs{SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	h.waitFor(fork.ID, string(sessions.EventTurnEnd))
	fv, _ := h.svc.GetSession(ctx, IDArgs{ID: fork.ID})
	last := fv.Messages[len(fv.Messages)-1]
	if fork.ForkedFrom != sess.ID || last.Kind != sessions.UIAssistant || last.Text != "another take" {
		t.Errorf("regenerated fork %+v ends with %+v", fork, last)
	}
	if _, err := h.svc.RetryTurn(ctx, SessionArgs{SessionID: "missing"}); !isCode(err, CodeNotFound) {
		t.Errorf("RetryTurn(missing): %v", err)
	}
}

func TestNotificationSettings(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	got, _ := h.svc.GetNotificationSettings(ctx, struct{}{})
	if !got.Enabled || got.Rules != notify.DefaultRules {
		t.Errorf("defaults = %+v", got)
	}
	want := NotificationSettings{Enabled: true, Rules: notify.Rules{ApprovalWaiting: true, OnlyUnfocused: false}}
	if got, err := h.svc.SaveNotificationSettings(ctx, want); err != nil || got != want {
		t.Errorf("saved %+v, %v; want %+v", got, err, want)
	}
	if r := h.svc.policy.Rules(); r != want.Rules {
		t.Errorf("policy rules = %+v, want them applied at once", r)
	}
	res, _ := h.svc.TestNotification(ctx, struct{}{})
	sent := h.notes.Sent()
	if !res.OK || len(sent) != 1 || !sent[0].Silent {
		t.Errorf("test notification: %+v, sent %+v (want one, silent with sound off)", res, sent)
	}
	h.notes.SetErr(notify.ErrUnavailable)
	if res, _ := h.svc.TestNotification(ctx, struct{}{}); res.OK || !strings.Contains(res.Message, "could not be shown") {
		t.Errorf("test with no notification service: %+v", res)
	}
}

func TestWindowStateAndRunningTasks(t *testing.T) {
	t.Parallel()
	h := newSvc(t, llmtest.Turn{Text: "slow", PauseAfter: 1})
	h.addProvider()
	ctx := context.Background()
	if w := h.svc.WindowState(); w != nil {
		t.Errorf("a new data folder remembers a window: %+v", w)
	}
	if err := h.svc.SaveWindowState(WindowState{X: 10, Y: 20, Width: 900, Height: 700}); err != nil {
		t.Fatal(err)
	}
	if w := h.svc.WindowState(); w == nil || *w != (WindowState{X: 10, Y: 20, Width: 900, Height: 700}) {
		t.Errorf("WindowState = %+v", w)
	}
	sess, _ := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	h.svc.RenameSession(ctx, RenameArgs{ID: sess.ID, Title: "Fix the tests"})
	h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "go"})
	h.waitFor(sess.ID, "message.delta")
	if got, _ := h.svc.RunningTasks(ctx, struct{}{}); len(got) != 1 || got[0] != "Fix the tests" {
		t.Errorf("RunningTasks = %v", got)
	}
	h.srv.Resume()
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
}

func TestCreateSessionNamingTheDefaultWorkspaceMakesIt(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	st, _ := h.svc.State(ctx, struct{}{})
	if folderProblem(st.DefaultWorkspace) == "" {
		t.Fatalf("the default workspace %s exists before its first chat", st.DefaultWorkspace)
	}
	// The page names the default workspace it shows, before it exists.
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: st.DefaultWorkspace})
	if err != nil || sess.Workspace != st.DefaultWorkspace {
		t.Fatalf("CreateSession(default) = %+v, %v", sess, err)
	}
	if problem := folderProblem(sess.Workspace); problem != "" {
		t.Errorf("the default workspace was not created: %s", problem)
	}
}

func TestBackgroundTaskNotifies(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	h.svc.policy.SetEnabled(true)
	h.svc.policy.SetFocused(true) // background work notifies even then
	for _, st := range []usertools.TaskState{usertools.TaskQueued, usertools.TaskRunning, usertools.TaskInterrupted} {
		h.svc.notifyTaskEnded(usertools.Task{Tool: "backup", Action: "run", State: st})
	}
	h.svc.notifyTaskEnded(usertools.Task{Tool: "backup", Action: "run", State: usertools.TaskFailed, Result: "disk full"})
	deadline := time.Now().Add(10 * time.Second)
	for len(h.notes.Sent()) < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := h.notes.Sent()
	if len(got) != 1 || got[0].Title != "Background task backup run failed" || got[0].Body != "disk full" || got[0].Kind != notify.KindError {
		t.Fatalf("sent %+v, want one failure notice", got)
	}
}
