package api

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/internal/testutil"
)

func skillMD(name, front, body string) string {
	return "---\nname: " + name + "\n" + front + "\n---\n\n" + body + "\n"
}

// loggedOf returns a session's logged events of one type, decoded.
func loggedOf[T any](t *testing.T, h *svcHarness, id string, typ sessions.EventType) []T {
	t.Helper()
	var out []T
	for ev, err := range h.svc.store.Events(context.Background(), id, 1, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != typ {
			continue
		}
		var v T
		if err := json.Unmarshal(ev.Data, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func requestToolNames(req llmtest.Request) []string {
	var out []string
	ts, _ := req.Body["tools"].([]any)
	for _, t := range ts {
		m, _ := t.(map[string]any)
		if fn, ok := m["function"].(map[string]any); ok {
			out = append(out, fmt.Sprint(fn["name"]))
		}
	}
	return out
}

// Settings → Skills lists every skill with its source and state: a user
// skill shadowing a project one, an invalid folder with the problem, an
// untrusted project skill that trusting makes ready.
func TestSkillsListTrustAndShow(t *testing.T) {
	t.Parallel()
	var home string
	h := newSvcWith(t, func(o *Options) { home = t.TempDir(); o.Home = home })
	ctx := context.Background()
	ws := h.workspace
	testutil.WriteFile(t, filepath.Join(filepath.Join(home, ".agents", "skills"), "review/SKILL.md"), skillMD("review", "description: My own review checklist.", "Mine."), 0)
	testutil.WriteFile(t, filepath.Join(filepath.Join(ws, ".claude", "skills"), "review/SKILL.md"), skillMD("review", "description: The repository's review checklist.", "Theirs."), 0)
	testutil.WriteFile(t, filepath.Join(filepath.Join(ws, ".tinyelf", "skills"), "deploy/SKILL.md"), skillMD("deploy", "description: Deploy to staging.\nallowed-tools: Bash(git:*)", "Deploy."), 0)
	testutil.WriteFile(t, filepath.Join(filepath.Join(ws, ".tinyelf", "skills"), "broken/SKILL.md"), "no frontmatter here", 0)

	l, err := h.svc.skillsAPI.ListSkills(ctx, SkillsArgs{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]string{}
	for _, s := range l.Skills {
		state[s.Name+"/"+string(s.Source)] = string(s.Status)
	}
	want := map[string]string{"review/user": "ready", "review/project": "shadowed", "deploy/project": "untrusted",
		"broken/project": "invalid", "test-fix/builtin": "ready", "code-review/builtin": "ready"}
	for k, v := range want {
		if state[k] != v {
			t.Errorf("%s is %q, want %q (all: %v)", k, state[k], v, state)
		}
	}
	if _, err := h.svc.skillsAPI.SetSkillTrust(ctx, SkillTrustArgs{Workspace: ws, Name: "test-fix", Trust: "trusted"}); !isCode(err, CodeInvalid) {
		t.Errorf("trusting a builtin skill: %v", err)
	}
	l, err = h.svc.skillsAPI.SetSkillTrust(ctx, SkillTrustArgs{Workspace: ws, Name: "deploy", Trust: "trusted"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(l.Skills, func(s SkillInfo) bool { return s.Name == "deploy" })
	if l.Skills[i].Status != "ready" || l.Skills[i].Trust != "trusted" {
		t.Errorf("deploy after trusting: %+v", l.Skills[i])
	}
	d, err := h.svc.skillsAPI.GetSkill(ctx, SkillArgs{Workspace: ws, Name: "test-fix"})
	if err != nil || !strings.HasPrefix(d.Content, "---\nname: test-fix") {
		t.Errorf("GetSkill: %v %q", err, d.Content)
	}
	d, err = h.svc.skillsAPI.GetSkill(ctx, SkillArgs{Workspace: ws, Name: "review", Location: filepath.Join(ws, ".claude", "skills", "review", "SKILL.md")})
	if err != nil || !strings.Contains(d.Content, "Theirs.") || d.Status != "shadowed" {
		t.Errorf("GetSkill of the shadowed one: %v %+v", err, d)
	}
	if _, err := h.svc.skillsAPI.GetSkill(ctx, SkillArgs{Workspace: ws, Name: "nope"}); !isCode(err, CodeNotFound) {
		t.Errorf("unknown skill: %v", err)
	}

	// The catalog lists the shadowed and invalid ones, hidden with why.
	list, err := h.svc.ListCapabilities(ctx, CapabilitiesArgs{Kind: "skill"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]CapabilityView{}
	for _, it := range list.Items {
		byID[it.ID] = it
	}
	if it := byID["skill__review"]; it.Source != "skill:user" || it.State != capabilities.StateDeferred {
		t.Errorf("skill__review: %+v", it)
	}
}

// A typed "/name args" runs a Markdown command with its arguments; its
// allowed-tools pre-approve and filter the turn's tools. A typed
// user-invocable skill loads it (capability.loaded). Text that only looks
// like a command is sent as typed.
func TestSkillsTypedSlashCommands(t *testing.T) {
	t.Parallel()
	h := newSvc(t,
		llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "e", Name: "Bash", Arguments: `{"command":"echo checked"}`}}},
		llmtest.Turn{Text: "Checked."},
		llmtest.Turn{Text: "Fixing."},
		llmtest.Turn{Text: "Plain."},
	)
	h.addProvider()
	ctx := context.Background()
	testutil.WriteFile(t, filepath.Join(h.workspace, ".tinyelf/commands/check.md"), "---\ndescription: Check a file\nargument-hint: FILE [WHY]\nallowed-tools: Bash(echo:*) Read\n---\nCheck $1 because $2. All: $ARGUMENTS", 0)
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := h.svc.ListCommands(ctx, CommandsArgs{SessionID: sess.ID})
	if err != nil {
		t.Fatal(err)
	}
	var found, skill bool
	for _, c := range cmds.Commands {
		found = found || c.Name == "check" && c.Kind == "markdown" && c.Source == "project" && c.ArgumentHint == "FILE [WHY]"
		skill = skill || c.Name == "test-fix" && c.Kind == "skill" && c.Source == "builtin"
	}
	if !found || !skill {
		t.Errorf("commands: %+v", cmds.Commands)
	}
	res, err := h.svc.RunTurn(ctx, sess.ID, `/check main.go "it broke"`)
	if err != nil || res.Reason != "done" {
		t.Fatalf("run: %v %+v", err, res)
	}
	reqs := h.srv.ChatRequests()
	msgs, _ := json.Marshal(reqs[0].Body["messages"])
	if !strings.Contains(string(msgs), `Check main.go because it broke. All: main.go \"it broke\"`) {
		t.Errorf("the command was not rendered:\n%s", msgs)
	}
	for _, n := range requestToolNames(reqs[0]) {
		if n != "Bash" && n != "Read" && n != capabilities.ToolSearchName {
			t.Errorf("the command did not filter the tools: %v", requestToolNames(reqs[0]))
			break
		}
	}
	results := loggedOf[sessions.ToolResult](t, h, sess.ID, sessions.EventToolResult)
	if len(results) != 1 || results[0].IsError {
		t.Errorf("echo was not pre-approved: %+v", results)
	}

	if _, err := h.svc.RunTurn(ctx, sess.ID, "/test-fix ./pkg"); err != nil {
		t.Fatal(err)
	}
	loads := loggedOf[sessions.CapabilityLoaded](t, h, sess.ID, sessions.EventCapabilityLoad)
	if len(loads) != 1 || loads[0].ID != "skill__test-fix" {
		t.Errorf("the typed skill was not loaded: %+v", loads)
	}
	if !strings.Contains(requestText(h.srv.ChatRequests()[2]), "Reproduce before touching anything") {
		t.Error("the typed skill's body is not the message")
	}
	if len(requestToolNames(h.srv.ChatRequests()[2])) < 5 {
		t.Errorf("the earlier command's filter outlived its turn: %v", requestToolNames(h.srv.ChatRequests()[2]))
	}

	if _, err := h.svc.RunTurn(ctx, sess.ID, "/usr/bin/env is missing"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(requestText(h.srv.ChatRequests()[3]), "/usr/bin/env is missing") {
		t.Error("a path was taken for a command")
	}
}

func requestText(req llmtest.Request) string {
	b, _ := json.Marshal(req.Body["messages"])
	return string(b)
}

// The watcher sees a skill added to ~/.agents/skills: the catalog's user
// partition says so, the UI is told, and the next model call logs a
// capability.diff with the reason.
func TestSkillsFolderWatch(t *testing.T) {
	t.Parallel()
	var home string
	h := newSvcWith(t, func(o *Options) { home = t.TempDir(); o.Home = home }, llmtest.Turn{Text: "one"}, llmtest.Turn{Text: "two"})
	h.addProvider()
	ctx := context.Background()
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.RunTurn(ctx, sess.ID, "hi"); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(filepath.Join(home, ".agents", "skills"), "sql-tuning/SKILL.md"), skillMD("sql-tuning", "description: Tune slow SQL queries.", "Explain first."), 0)
	const want = "skill sql-tuning was added to ~/.agents/skills"
	deadline := time.Now().Add(15 * time.Second)
	for {
		if why, _ := h.svc.catalog.Snapshot().PartitionReason(engine.UserSkillsPartition); why == want {
			break
		}
		if time.Now().After(deadline) {
			why, _ := h.svc.catalog.Snapshot().PartitionReason(engine.UserSkillsPartition)
			t.Fatalf("the watcher did not report the new skill (reason %q)", why)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := h.svc.RunTurn(ctx, sess.ID, "again"); err != nil {
		t.Fatal(err)
	}
	diffs := loggedOf[sessions.CapabilityDiff](t, h, sess.ID, sessions.EventCapabilityDiff)
	last := diffs[len(diffs)-1]
	if len(last.Items) != 1 || last.Items[0].ID != "skill__sql-tuning" || last.Items[0].Reason != want {
		t.Errorf("the diff: %+v", last.Items)
	}
}

// SkillHub from the settings: indexes are checked when saved, a search
// ranks the loopback index, an install lands in the user skills folder and
// shows in the list (removable), a removal takes it away.
func TestSkillsHubSettingsInstallRemove(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("sql-tuning/SKILL.md")
	w.Write([]byte(skillMD("sql-tuning", "description: Tune slow SQL queries.", "Explain first.")))
	zw.Close()
	archive := buf.Bytes()
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.json":
			fmt.Fprintf(w, `{"skills":[{"id":"db/sql-tuning","name":"sql-tuning","description":"Tune slow SQL queries","url":%q}]}`, base+"/s.zip")
		case "/s.zip":
			w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	h := newSvc(t)
	ctx := context.Background()
	k := h.svc.skillsAPI
	// Out of the box: TinyElf's default index, which the user can remove
	// (kept as "hubIndexes": [] in the settings file) and restore.
	def := config.DefaultHubIndexes()
	if st, err := k.GetSkillSettings(ctx, struct{}{}); err != nil || !slices.Equal(st.HubIndexes, def) || !slices.Equal(st.DefaultHubIndexes, def) {
		t.Fatalf("fresh settings: %+v %v", st, err)
	}
	if l, err := k.ListSkills(ctx, SkillsArgs{}); err != nil || !slices.Equal(l.HubIndexes, def) {
		t.Errorf("list on fresh settings: %v %v", l.HubIndexes, err)
	}
	if st, err := k.SaveSkillSettings(ctx, SkillSettings{HubIndexes: []string{""}}); err != nil || len(st.HubIndexes) != 0 || st.HubIndexes == nil {
		t.Fatalf("remove the default: %+v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.svc.opts.DataDir, config.SettingsFile)); !strings.Contains(string(b), `"hubIndexes": []`) {
		t.Errorf("the settings file does not keep the removal:\n%s", b)
	}
	if _, err := k.SearchSkillHub(ctx, HubSearchArgs{Query: "sql"}); !isCode(err, CodeInvalid) || !strings.Contains(err.Error(), "Settings → Skills") {
		t.Errorf("search without an index: %v", err)
	}
	if st, err := k.SaveSkillSettings(ctx, SkillSettings{RestoreDefault: true}); err != nil || !slices.Equal(st.HubIndexes, def) {
		t.Errorf("restore the default: %+v %v", st, err)
	}
	if _, err := k.SaveSkillSettings(ctx, SkillSettings{HubIndexes: []string{"http://example.com/index.json"}}); !isCode(err, CodeInvalid) {
		t.Errorf("plain http to another machine was accepted: %v", err)
	}
	got, err := k.SaveSkillSettings(ctx, SkillSettings{HubIndexes: []string{" " + base + "/index.json ", base + "/index.json", ""}})
	if err != nil || len(got.HubIndexes) != 1 {
		t.Fatalf("save: %v %+v", err, got)
	}
	res, err := k.SearchSkillHub(ctx, HubSearchArgs{Query: "slow sql"})
	if err != nil || len(res.Entries) != 1 || res.Entries[0].ID != "db/sql-tuning" {
		t.Fatalf("search: %v %+v", err, res)
	}
	inst, err := k.InstallSkill(ctx, HubInstallArgs{ID: "db/sql-tuning"})
	if err != nil || inst.Name != "sql-tuning" {
		t.Fatalf("install: %v %+v", err, inst)
	}
	l, _ := k.ListSkills(ctx, SkillsArgs{})
	i := slices.IndexFunc(l.Skills, func(s SkillInfo) bool { return s.Name == "sql-tuning" })
	if i < 0 || l.Skills[i].Installed == nil || l.Skills[i].Installed.ID != "db/sql-tuning" {
		t.Fatalf("the installed skill is not listed as installed: %+v", l.Skills)
	}
	if v, _ := h.svc.catalog.Snapshot().View("").ByID("skill__sql-tuning"); v.ID == "" {
		t.Error("the installed skill is not in the catalog at once")
	}
	if _, err := k.RemoveSkill(ctx, RemoveSkillArgs{Name: "sql-tuning"}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.RemoveSkill(ctx, RemoveSkillArgs{Name: "test-fix"}); !isCode(err, CodeInvalid) {
		t.Errorf("removing a builtin skill: %v", err)
	}
	l, _ = k.ListSkills(ctx, SkillsArgs{})
	if slices.ContainsFunc(l.Skills, func(s SkillInfo) bool { return s.Name == "sql-tuning" }) {
		t.Error("the removed skill is still listed")
	}
}
