package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
	"tinyelf/backend/skills"
)

// Skills end to end through the real engine and the real skills package:
// the skill folders on disk, the libraries, the catalog entries
// (SkillEntries), the tools of the builder's steps 5, 6 and 9, the trust
// store and the permission gate.

// skillEnv is the skills side of a harness: a data folder with the user
// skills, a home folder, the trust store and one library per workspace.
type skillEnv struct {
	data, home string
	trust      *skills.TrustStore
	shared     *skills.Library
	hub        *skills.Hub
	noPrompt   bool
	cat        *capabilities.Catalog

	mu   sync.Mutex
	libs map[string]*skills.Library
}

// withSkills wires env into the engine as the api does: the shared
// partitions of the user's and the builtin skills, the project skills as
// the session's capability source, the skills tools.
func withSkills(env *skillEnv) harnessOption {
	return func(h *harness, o *Options) {
		env.data, env.home = filepath.Join(h.dir, "data"), filepath.Join(h.dir, "home")
		for _, d := range []string{env.data, env.home} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				h.t.Fatal(err)
			}
		}
		var err error
		if env.trust, err = skills.OpenTrustStore(filepath.Join(env.data, skills.TrustFile)); err != nil {
			h.t.Fatal(err)
		}
		env.libs = map[string]*skills.Library{}
		env.shared = skills.NewLibrary(env.options(""), env.trust)
		if env.cat == nil {
			env.cat = capabilities.NewCatalog()
		}
		env.syncShared("skills loaded")
		o.Catalog = env.cat
		o.Skills = &Skills{Library: env.library, Hub: env.hub, NoTrustPrompt: env.noPrompt}
		o.CapabilitySources = append(o.CapabilitySources, env)
	}
}

func (env *skillEnv) options(ws string) skills.Options {
	return skills.Options{DataDir: env.data, Home: env.home, Workspace: ws}
}

func (env *skillEnv) library(ws string) *skills.Library {
	if ws == "" {
		return env.shared
	}
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.libs[ws] == nil {
		env.libs[ws] = skills.NewLibrary(env.options(ws), env.trust)
	}
	return env.libs[ws]
}

func (env *skillEnv) syncShared(reason string) {
	snap := env.shared.Snapshot()
	env.cat.Replace("skill:user", SkillEntries(env.shared, snap, skills.SourceUser, env.noPrompt),
		capabilities.PartitionOptions{Priority: capabilities.PrioritySkill - 1, Reason: reason})
	env.cat.Replace("skill:builtin", SkillEntries(env.shared, snap, skills.SourceBuiltin, env.noPrompt),
		capabilities.PartitionOptions{Priority: capabilities.PrioritySkill + 1, Reason: reason})
}

// Capabilities offers the workspace's project skills, as api does.
func (env *skillEnv) Capabilities(_ context.Context, info SessionInfo) (string, []capabilities.Entry) {
	if changes := env.shared.Refresh(); len(changes) > 0 {
		env.syncShared(changes[0].Reason)
	}
	lib := env.library(info.Workspace)
	lib.Refresh()
	es := SkillEntries(lib, lib.Snapshot(), skills.SourceProject, env.noPrompt)
	hs := fnv.New64a()
	for _, e := range es {
		fmt.Fprintf(hs, "%s %s %s\n", e.ID, e.Summary, e.Problem)
	}
	return fmt.Sprint(hs.Sum64()), es
}

// writeSkill writes dir/name/SKILL.md with the frontmatter lines given,
// and the other files (relative path → content).
func writeSkill(t *testing.T, dir, name, front, body string, files map[string]string) string {
	t.Helper()
	sd := filepath.Join(dir, name)
	md := "---\nname: " + name + "\n" + front + "\n---\n\n" + body + "\n"
	for rel, content := range map[string]string{"SKILL.md": md} {
		files[rel] = content
	}
	for rel, content := range files {
		p := filepath.Join(sd, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return sd
}

const deployBody = "DEPLOY-BODY: run git status, then scripts/deploy.sh."

// Progressive loading: index, then the body with the list of files, then
// a file read with Read from the skill's folder outside the workspace. The
// folder is read-only, and nothing else outside the workspace is readable.
func TestSkillsProgressiveLoading(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		var refPath, outside string
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"pdf-forms"}`)}},
			{Dynamic: func(llmtest.Request) llmtest.Turn {
				return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("r", "Read", fmt.Sprintf(`{"path":%q}`, refPath))}}
			}},
			{Dynamic: func(llmtest.Request) llmtest.Turn {
				return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("w", "Write", fmt.Sprintf(`{"path":%q,"content":"x"}`, refPath))}}
			}},
			{Dynamic: func(llmtest.Request) llmtest.Turn {
				return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("o", "Read", fmt.Sprintf(`{"path":%q}`, outside))}}
			}},
			{Text: "Filled the form."},
		}, withSkills(env))
		user := filepath.Join(env.data, "skills")
		dir := writeSkill(t, user, "pdf-forms", "description: Fill PDF forms. Use when the user has a PDF form to fill.\nlicense: Apache-2.0",
			"# PDF forms\n\nPDF-BODY: read references/fields.md first, then run scripts/fill.py.", map[string]string{
				"references/fields.md": "FIELDS-REFERENCE: the field names are in the AcroForm.",
				"scripts/fill.py":      "print('fill')\n",
			})
		refPath = filepath.Join(dir, "references", "fields.md")
		outside = filepath.Join(h.dir, "secret.txt")
		if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
			t.Fatal(err)
		}
		env.shared.Reload()
		env.syncShared("skill pdf-forms was added")
		id := h.session(ModeAuto)
		h.run(id, "fill in the tax form")
		res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(res) != 4 {
			t.Fatalf("results: %+v", res)
		}
		mustContain(t, "read_skill's result", res[0].Content, "PDF-BODY", "<file>references/fields.md</file>", "<file>scripts/fill.py</file>", "Skill folder: "+dir)
		if res[1].IsError || !strings.Contains(res[1].Content, "FIELDS-REFERENCE") {
			t.Errorf("Read of the skill's reference: %+v", res[1])
		}
		if !res[2].IsError || !strings.Contains(res[2].Content, "read-only") {
			t.Errorf("a write into the skill's folder was not refused: %+v", res[2])
		}
		if !res[3].IsError || strings.Contains(res[3].Content, "SECRET") {
			t.Errorf("a file outside the workspace and the skill folders was read: %+v", res[3])
		}
		mustContain(t, "the system prompt", systemText(h.srv.ChatRequests()[0]), "File tools also reach "+user+" by absolute path (your skills folder; read-only)")
	})
}

// A project skill is asked about the first time it is loaded in a
// workspace (the approval card's question names its allowed-tools); the
// answer is remembered: the next session in the same workspace loads it
// without asking, and after a restart too.
func TestSkillsProjectTrustAskedOnce(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"deploy"}`)}},
			{Text: "Deploying."},
			{ToolCalls: []llmtest.ToolCall{call("k2", "read_skill", `{"name":"deploy"}`)}},
			{Text: "Deploying again."},
		}, withSkills(env))
		writeSkill(t, filepath.Join(h.workspace, ".tinyelf", "skills"), "deploy",
			"description: Deploy this app to staging.\nallowed-tools: Bash(git:*) Read", deployBody, map[string]string{"scripts/deploy.sh": "echo deploy\n"})
		first := h.session(ModeDefault)
		h.run(first, "deploy it")
		h.mu.Lock()
		asked := append([]ApprovalRequest(nil), h.asked...)
		h.mu.Unlock()
		if len(asked) != 1 || asked[0].Kind != ApprovalSkillTrust || asked[0].CallID != "k" {
			t.Fatalf("asked %+v", asked)
		}
		if want := `This folder's skill "deploy" wants to guide the agent; it may ask to run Bash(git:*) Read.`; asked[0].Question != want {
			t.Errorf("question %q, want %q", asked[0].Question, want)
		}
		res := logged[sessions.ToolResult](h, first, sessions.EventToolResult)
		if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, deployBody) {
			t.Fatalf("the trusted skill did not load: %+v", res)
		}
		ask := logged[sessions.ApprovalAsked](h, first, sessions.EventApprovalAsked)
		if len(ask) != 1 || ask[0].Kind != ApprovalSkillTrust || ask[0].Skill != "deploy" || !strings.Contains(ask[0].Question, "wants to guide the agent") {
			t.Errorf("approval.asked %+v", ask)
		}
		if st := env.trust.State(h.workspace, "deploy"); st != skills.TrustTrusted {
			t.Errorf("trust saved as %s", st)
		}

		second := h.session(ModeDefault)
		h.run(second, "deploy it again")
		h.mu.Lock()
		n := len(h.asked)
		h.mu.Unlock()
		if n != 1 {
			t.Errorf("asked again (%d questions)", n)
		}
		if res := logged[sessions.ToolResult](h, second, sessions.EventToolResult); len(res) != 1 || res[0].IsError {
			t.Errorf("second session: %+v", res)
		}
		// A fresh trust store on the same file (another process) agrees.
		again, err := skills.OpenTrustStore(filepath.Join(env.data, skills.TrustFile))
		if err != nil || again.State(h.workspace, "deploy") != skills.TrustTrusted {
			t.Errorf("the answer is not on disk: %v", err)
		}
	})
}

// Denying a project skill refuses it and keeps it out of the index from
// then on.
func TestSkillsProjectTrustDenied(t *testing.T) {
	env := &skillEnv{}
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"deploy"}`)}},
		{Text: "Not deploying."},
		{Text: "ok"},
	}, withSkills(env), withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny} }))
	writeSkill(t, filepath.Join(h.workspace, ".claude", "skills"), "deploy", "description: Deploy this app.", deployBody, map[string]string{})
	id := h.session(ModeDefault)
	h.run(id, "deploy it")
	res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(res) != 1 || !res[0].IsError || strings.Contains(res[0].Content, deployBody) {
		t.Fatalf("a denied skill loaded: %+v", res)
	}
	h.run(id, "and now?")
	reqs := h.srv.ChatRequests()
	if strings.Contains(systemText(reqs[len(reqs)-1]), "deploy —") {
		t.Error("the denied skill is still in the index")
	}
	diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
	last := diffs[len(diffs)-1]
	if len(last.Items) == 0 || last.Items[0].ID != "skill__deploy" || last.Items[0].Change != "removed" || !strings.Contains(last.Items[0].Reason, "did not trust") {
		t.Errorf("the diff does not say why the skill went: %+v", last.Items)
	}
}

// With nobody to ask (tinyelf run without --yes) an untrusted project
// skill is listed, kept out of the index, and refused with how to trust
// it.
func TestSkillsProjectUntrustedWithoutPrompt(t *testing.T) {
	env := &skillEnv{noPrompt: true}
	h := newHarness(t, "anthropic", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("l", "list_skills", `{}`), call("k", "read_skill", `{"name":"deploy"}`)}},
		{Text: "I cannot."},
	}, withSkills(env))
	writeSkill(t, filepath.Join(h.workspace, ".agents", "skills"), "deploy", "description: Deploy this app.", deployBody, map[string]string{})
	id := h.session(ModeDefault)
	h.run(id, "deploy it")
	if strings.Contains(systemText(h.srv.ChatRequests()[0]), "deploy —") {
		t.Error("a skill that cannot be loaded is in the index")
	}
	res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(res) != 2 {
		t.Fatalf("results %+v", res)
	}
	mustContain(t, "list_skills", res[0].Content, "deploy [project, untrusted]")
	if !res[1].IsError || strings.Contains(res[1].Content, deployBody) {
		t.Errorf("read_skill: %+v", res[1])
	}
	mustContain(t, "the refusal", res[1].Content, "tinyelf skills trust deploy --workspace "+h.workspace)
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.asked) != 0 {
		t.Errorf("asked %+v", h.asked)
	}
}

// allowed-tools of a loaded skill pre-approve matching calls for the rest
// of the turn: "echo" runs without asking, "ls" still asks, a deny rule
// still refuses, and the next turn asks again.
func TestSkillsAllowedToolsForTheTurn(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"greeter"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("e", "Bash", `{"command":"echo hello"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("l", "Bash", `{"command":"ls"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("g", "Bash", `{"command":"git status"}`)}},
			{Text: "Greeted."},
			{ToolCalls: []llmtest.ToolCall{call("e2", "Bash", `{"command":"echo again"}`)}},
			{Text: "Again."},
		}, withSkills(env), withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny} }))
		writeSkill(t, filepath.Join(env.data, "skills"), "greeter", "description: Greet people.\nallowed-tools: Bash(echo:*) Bash(git:*)", "Say hello with echo.", map[string]string{})
		env.shared.Reload()
		env.syncShared("added")
		if _, err := h.settings.AddRule(config.Rule{Tool: "Bash", Pattern: "git", Action: config.RuleDeny}); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		h.run(id, "greet the team")
		res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(res) != 4 {
			t.Fatalf("results %+v", res)
		}
		if res[1].IsError || !strings.Contains(res[1].Content, "hello") {
			t.Errorf("the pre-approved echo did not run: %+v", res[1])
		}
		if !res[2].IsError || !strings.Contains(res[2].Content, "denied") {
			t.Errorf("ls was not asked about (and denied): %+v", res[2])
		}
		if !res[3].IsError || !strings.Contains(res[3].Content, "deny rule") {
			t.Errorf("the deny rule did not win over allowed-tools: %+v", res[3])
		}
		answers := logged[sessions.ApprovalAnswered](h, id, sessions.EventApprovalAnswered)
		var bySkill bool
		for _, a := range answers {
			if a.CallID == "e" && a.By == "skill" && strings.Contains(a.Rule, "allowed-tools of skill greeter") {
				bySkill = true
			}
		}
		if !bySkill {
			t.Errorf("the grant is not in the audit trail: %+v", answers)
		}
		h.run(id, "once more")
		res = logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if last := res[len(res)-1]; !last.IsError {
			t.Errorf("the grant outlived its turn: %+v", last)
		}
	})
}

// Plan mode hides Bash whatever a skill's allowed-tools say.
func TestSkillsAllowedToolsNotBeyondPlanMode(t *testing.T) {
	env := &skillEnv{}
	h := newHarness(t, "openai", []llmtest.Turn{
		{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"greeter"}`)}},
		{ToolCalls: []llmtest.ToolCall{call("e", "Bash", `{"command":"echo hello"}`)}},
		{Text: "Planned."},
	}, withSkills(env))
	writeSkill(t, filepath.Join(env.data, "skills"), "greeter", "description: Greet people.\nallowed-tools: Bash", "Say hello.", map[string]string{})
	env.shared.Reload()
	env.syncShared("added")
	id := h.session(ModePlan)
	h.run(id, "greet")
	res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
	if len(res) != 2 || !res[1].IsError || strings.Contains(res[1].Content, "hello\n") {
		t.Errorf("Bash ran in plan mode: %+v", res)
	}
}

// A Markdown command run by the model with slash_command: its arguments
// are substituted, its allowed-tools pre-approve and narrow the turn's
// tools to what it names.
func TestSkillsSlashCommandMarkdown(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("c", "slash_command", `{"command":"/greet","args":"Alice \"Bob Smith\""}`)}},
			{ToolCalls: []llmtest.ToolCall{call("e", "Bash", `{"command":"echo hi Alice"}`)}},
			{Text: "Greeted."},
		}, withSkills(env), withApprover(func(ApprovalRequest) ApprovalAnswer { return ApprovalAnswer{Decision: Deny} }))
		cmd := "---\ndescription: Greet two people\nargument-hint: FIRST SECOND\nallowed-tools: Bash(echo:*), Read\n---\nGreet $1 and then $2 (all: $ARGUMENTS)."
		if err := os.MkdirAll(filepath.Join(env.data, "commands"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(env.data, "commands", "greet.md"), []byte(cmd), 0o644); err != nil {
			t.Fatal(err)
		}
		id := h.session(ModeDefault)
		h.run(id, "greet them")
		res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(res) != 2 {
			t.Fatalf("results %+v", res)
		}
		mustContain(t, "the command", res[0].Content, `Greet Alice and then Bob Smith (all: Alice "Bob Smith").`)
		if res[1].IsError {
			t.Errorf("the command's allowed-tools did not pre-approve echo: %+v", res[1])
		}
		reqs := h.srv.ChatRequests()
		got := toolNames(reqs[1])
		for _, n := range got {
			if n != "Bash" && n != "Read" && n != capabilities.ToolSearchName {
				t.Errorf("the command's allowed-tools did not filter the tools: %v", got)
				break
			}
		}
		if !contains(toolNames(reqs[0]), "Write") {
			t.Errorf("the filter applied before the command ran: %v", toolNames(reqs[0]))
		}
	})
}

// skillhub_install through the tool against a loopback index: the
// approval is asked (default mode), the archive's sha256 checked, the
// skill installed into the user skills folder and loadable at once.
func TestSkillsHubInstallThroughTheTool(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		archive := zipOf(t, map[string]string{
			"lint-fix-main/SKILL.md":        "---\nname: lint-fix\ndescription: Fix lint errors one rule at a time.\n---\n\nLINT-BODY: run the linter first.\n",
			"lint-fix-main/scripts/lint.sh": "#!/bin/sh\n",
			"lint-fix-main/references/a.md": "# A\n",
		})
		sum := sha256.Sum256(archive)
		mux := http.NewServeMux()
		var base string
		mux.HandleFunc("/index.json", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"skills":[{"id":"acme/lint-fix","name":"lint-fix","description":"Fix lint errors","version":"1.2.0","url":%q,"sha256":%q},
				{"id":"acme/bad-sum","name":"bad","url":%q,"sha256":"%s"}]}`, base+"/lint.zip", hex.EncodeToString(sum[:]), base+"/lint.zip", strings.Repeat("0", 64))
		})
		mux.HandleFunc("/lint.zip", func(w http.ResponseWriter, r *http.Request) { w.Write(archive) })
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		base = srv.URL
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("s", "skillhub_search", `{"query":"lint"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("b", "skillhub_install", `{"skillId":"acme/bad-sum"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("i", "skillhub_install", `{"skillId":"acme/lint-fix"}`)}},
			{ToolCalls: []llmtest.ToolCall{call("k", "read_skill", `{"name":"lint-fix"}`)}},
			{Text: "Installed and loaded."},
		}, func(h *harness, o *Options) {
			env.hub = skills.NewHub(filepath.Join(h.dir, "data", "skills"), func() []string { return []string{base + "/index.json"} })
			withSkills(env)(h, o)
		})
		id := h.session(ModeDefault)
		h.run(id, "find a lint skill and use it")
		res := logged[sessions.ToolResult](h, id, sessions.EventToolResult)
		if len(res) != 4 {
			t.Fatalf("results %+v", res)
		}
		mustContain(t, "the search", res[0].Content, "id acme/lint-fix: lint-fix 1.2.0")
		if !res[1].IsError || !strings.Contains(strings.ToLower(res[1].Content), "sha256") {
			t.Errorf("a bad checksum installed: %+v", res[1])
		}
		if res[2].IsError || !strings.Contains(res[2].Content, `Installed skill "lint-fix"`) {
			t.Errorf("install: %+v", res[2])
		}
		if res[3].IsError || !strings.Contains(res[3].Content, "LINT-BODY") {
			t.Errorf("the installed skill did not load: %+v", res[3])
		}
		h.mu.Lock()
		var installAsks int
		for _, a := range h.asked {
			if a.Tool == "skillhub_install" {
				installAsks++
			}
		}
		h.mu.Unlock()
		if installAsks != 2 {
			t.Errorf("skillhub_install asked %d times, want 2 (once per install in default mode)", installAsks)
		}
		entries, _ := os.ReadDir(filepath.Join(env.data, "skills"))
		var names []string
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") { // the install lock
				names = append(names, e.Name())
			}
		}
		if len(names) != 1 || names[0] != "lint-fix" {
			t.Errorf("the skills folder holds %v (a failed install must leave nothing)", names)
		}
	})
}

func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A skill added to the user's folder between two calls enters the index
// with a capability.diff that says where it came from.
func TestSkillsFolderChangeIsADiff(t *testing.T) {
	env := &skillEnv{}
	h := newHarness(t, "openai", []llmtest.Turn{
		{Dynamic: func(llmtest.Request) llmtest.Turn {
			writeSkill(t, filepath.Join(env.data, "skills"), "release-notes", "description: Write release notes from the git log.", "Body.", map[string]string{})
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{call("l", "list_skills", `{}`)}}
		}},
		{Text: "There is a release-notes skill now."},
	}, withSkills(env))
	id := h.session(ModeDefault)
	h.run(id, "what skills are there?")
	if !strings.Contains(systemText(h.srv.ChatRequests()[1]), "release-notes — Write release notes") {
		t.Errorf("the new skill is not in the next call's index:\n%s", systemText(h.srv.ChatRequests()[1]))
	}
	diffs := logged[sessions.CapabilityDiff](h, id, sessions.EventCapabilityDiff)
	var found bool
	for _, d := range diffs[1:] {
		for _, it := range d.Items {
			if it.ID == "skill__release-notes" && it.Change == "added" && strings.Contains(it.Reason, "release-notes") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no diff adds the skill with its reason: %+v", diffs)
	}
	checkReplay(t, h, id, 2)
}

// After a compaction a loaded skill's body is a one-line note, in the
// summary request and in the history after it, and read_skill loads it
// again.
func TestSkillsBodyIsANoteAfterCompaction(t *testing.T) {
	forEachFormat(t, func(t *testing.T, kind string) {
		env := &skillEnv{}
		h := newHarness(t, kind, []llmtest.Turn{
			{ToolCalls: []llmtest.ToolCall{call("k1", "read_skill", `{"name":"pdf-forms"}`)}},
			{Text: "first answer", Usage: &llmtest.Usage{Input: 5000, Output: 10}},
			{Text: "SUMMARY of the first exchange"},
			{ToolCalls: []llmtest.ToolCall{call("k2", "read_skill", `{"name":"pdf-forms"}`)}},
			{Text: "second answer"},
		}, withSkills(env))
		if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].ContextWindow = 6000; return nil }); err != nil {
			t.Fatal(err)
		}
		writeSkill(t, filepath.Join(env.data, "skills"), "pdf-forms", "description: Fill PDF forms.", "# PDF forms\n\nPDF-BODY: read the fields first.", map[string]string{})
		env.shared.Reload()
		env.syncShared("skill pdf-forms was added")
		id := h.session(ModeAuto)
		h.run(id, "fill in the tax form")
		if res := h.run(id, "and the second form"); res.Reason != EndDone || res.Text != "second answer" {
			t.Fatalf("result %+v", res)
		}
		reqs := h.srv.ChatRequests()
		if len(reqs) != 5 {
			t.Fatalf("%d requests, want read, answer, summary, read, answer", len(reqs))
		}
		note := "its instructions are no longer in the conversation"
		summaryReq, after, reread := requestText(reqs[2]), requestText(reqs[3]), requestText(reqs[4])
		mustContain(t, "the summary request", summaryReq, note)
		mustContain(t, "the request after compaction", after, "SUMMARY of the first exchange", note)
		if strings.Contains(after, "pdf-forms (loaded)") {
			t.Error("the index after the compaction still says the skill is loaded")
		}
		for name, text := range map[string]string{"the summary request": summaryReq, "the request after compaction": after} {
			if strings.Contains(text, "PDF-BODY") {
				t.Errorf("%s still carries the skill's body", name)
			}
		}
		mustContain(t, "the request after reading it again", reread, "PDF-BODY")
		comps := logged[sessions.Compaction](h, id, sessions.EventCompaction)
		if len(comps) != 1 || !strings.Contains(comps[0].Summary, skillNote("pdf-forms")) {
			t.Errorf("compaction %+v", comps)
		}
		if res := logged[sessions.ToolResult](h, id, sessions.EventToolResult); len(res) != 2 || res[1].IsError || !strings.Contains(res[1].Content, "PDF-BODY") {
			t.Errorf("read_skill after the compaction: %+v", res)
		}
	})
}

func TestWithoutSkillBodies(t *testing.T) {
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "go"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "a", Name: "read_skill", Arguments: `{"name":"x"}`},
			{ID: "b", Name: "read_skill", Arguments: `{"name":"x","file":"references/r.md"}`},
			{ID: "c", Name: "Read", Arguments: `{"path":"f"}`},
			{ID: "d", Name: "read_skill", Arguments: `{"name":"y"}`},
			{ID: "e", Name: "read_skill", Arguments: `not json`},
			{ID: "f", Name: "slash_command", Arguments: `{"command":"/z","args":"1"}`},
			{ID: "g", Name: "slash_command", Arguments: `{"command":"changelog"}`},
		}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "BODY-X"},
		{Role: llm.RoleTool, ToolCallID: "b", Content: "FILE-X"},
		{Role: llm.RoleTool, ToolCallID: "c", Content: "PLAIN"},
		{Role: llm.RoleTool, ToolCallID: "d", Content: "no skill named y", IsError: true},
		{Role: llm.RoleTool, ToolCallID: "e", Content: "bad args"},
		{Role: llm.RoleTool, ToolCallID: "f", Content: "BODY-Z"},
		{Role: llm.RoleTool, ToolCallID: "g", Content: "MARKDOWN-COMMAND"},
	}
	out, loaded := withoutSkillBodies(msgs, func(n string) bool { return n == "z" || n == "x" })
	if !slices.Equal(loaded, []string{"x", "z"}) {
		t.Errorf("loaded = %v", loaded)
	}
	want := []string{"go", "", skillNote("x"), "", "PLAIN", "no skill named y", "bad args", skillNote("z"), "MARKDOWN-COMMAND"}
	for i, m := range out {
		if i == 3 {
			if !strings.Contains(m.Content, "references/r.md") || strings.Contains(m.Content, "FILE-X") {
				t.Errorf("file result = %q", m.Content)
			}
			continue
		}
		if m.Content != want[i] {
			t.Errorf("message %d = %q, want %q", i, m.Content, want[i])
		}
	}
	if msgs[2].Content != "BODY-X" {
		t.Error("the input was modified")
	}
}
