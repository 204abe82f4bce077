package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"tinyelf/backend/llm/llmtest"
)

func TestEscapeControls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, line, text string
	}{
		{"plain", "hello, 世界", "hello, 世界", "hello, 世界"},
		{"newline and tab", "a\tb\nc", `a\tb\nc`, "a\tb\nc"},
		{"CRLF", "a\r\nb", `a\r\nb`, "a\r\nb"},
		{"lone CR", "ok\rFAKE", `ok\rFAKE`, `ok\rFAKE`},
		{"ESC sequences", "\x1b[31mred\x1b]0;title\x07", `\x1b[31mred\x1b]0;title\x07`, `\x1b[31mred\x1b]0;title\x07`},
		{"DEL and NUL", "a\x7fb\x00", `a\x7fb\x00`, `a\x7fb\x00`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`, `a\u009b31mb`},
		{"bidi override", "abc\u202edcba", `abc\u202edcba`, `abc\u202edcba`},
		{"invalid UTF-8", "a\xffb", `a\xffb`, `a\xffb`},
		{"backslashes stay", `C:\path\n`, `C:\path\n`, `C:\path\n`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := oneLine(tc.in); got != tc.line {
				t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.line)
			}
			if got := text(tc.in); got != tc.text {
				t.Errorf("text(%q) = %q, want %q", tc.in, got, tc.text)
			}
		})
	}
}

func TestWriteJSONEscapesWhatJSONLeaves(t *testing.T) {
	t.Parallel()
	v := map[string]string{"s": "a\x1b[31m\u009b\u202e\x7fz"}
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(buf.Bytes(), "\x1b\x7f\u009b\u202e") {
		t.Errorf("raw controls in %q", buf.String())
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["s"] != v["s"] {
		t.Errorf("the JSON no longer means the same: %q (%v)", back, err)
	}
}

// noRawControls fails when out holds a control character that could
// drive the terminal.
func noRawControls(t *testing.T, what, out string) {
	t.Helper()
	if i := strings.IndexFunc(out, func(r rune) bool {
		return r == 0x1b || r == 0x07 || r == '\r' || r == 0x7f || (r >= 0x80 && r <= 0x9f)
	}); i >= 0 {
		t.Errorf("%s holds a raw control character at %d: %q", what, i, out)
	}
}

// TestOutputIsEscaped drives the commands with hostile text from every
// source: a tool's output, the model's answer and its tool names, an MCP
// server's stderr, a session's title. Nothing reaches the terminal raw.
func TestOutputIsEscaped(t *testing.T) {
	cliEnv(t)
	ws := t.TempDir()
	const evil = "\x1b]0;pwned\x07\x1b[2J\rFAKE"

	t.Run("tool output", func(t *testing.T) {
		code, stdout, stderr := runCLI(t, "tool", "Bash", "--workspace", ws, "--args", `{"command":"printf 'line one\\n\\033[31mred\\033]0;t\\007\\n'"}`)
		if code != exitOK || !strings.Contains(stdout, `line one`+"\n"+`\x1b[31mred\x1b]0;t\x07`) {
			t.Fatalf("exit %d: %q %s", code, stdout, stderr)
		}
		noRawControls(t, "stdout", stdout)
	})

	t.Run("model text and tool names", func(t *testing.T) {
		srv := llmtest.NewServer(t)
		srv.Push(llmtest.Turn{Text: "answer " + evil, ToolCalls: []llmtest.ToolCall{{Name: "Read\n[approved by --yes] Bash rm -rf /", Arguments: `{"path":"` + strings.ReplaceAll(evil, "\x1b", `\u001b`) + `"}`}}},
			llmtest.Turn{Text: "done " + evil})
		code, stdout, stderr := runCLI(t, "run", "--workspace", ws, "--base-url", srv.URL, "--model", "m", "-p", "title "+evil)
		if code != exitOK {
			t.Fatalf("exit %d\nstdout: %q\nstderr: %q", code, stdout, stderr)
		}
		noRawControls(t, "stdout", stdout)
		noRawControls(t, "stderr", stderr)
		if !strings.Contains(stderr, `→ Read\n[approved by --yes] Bash rm -rf /`) || strings.Contains(stderr, "\n[approved by --yes]") {
			t.Errorf("the tool name was not kept on its line:\n%s", stderr)
		}
		if !strings.Contains(stdout, `answer \x1b]0;pwned\x07\x1b[2J\rFAKE`) {
			t.Errorf("stdout = %q", stdout)
		}

		code, stdout, _ = runCLI(t, "sessions", "list")
		if code != exitOK || !strings.Contains(stdout, `title \x1b]0;pwned`) {
			t.Errorf("sessions list: %d %q", code, stdout)
		}
		noRawControls(t, "sessions list", stdout)
		id := strings.Fields(strings.Split(stdout, "\n")[1])[0]
		for _, args := range [][]string{{"sessions", "show", id}, {"sessions", "export", id, "--format", "json"}, {"sessions", "replay", id}, {"sessions", "search", "pwned"}} {
			code, out, stderr := runCLI(t, args...)
			if code != exitOK {
				t.Errorf("%v: exit %d %s", args, code, stderr)
			}
			noRawControls(t, strings.Join(args[:2], " "), out)
		}
	})

	t.Run("an MCP server's output", func(t *testing.T) {
		if code, _, stderr := runCLI(t, "mcp", "add", "evil", "--timeout", "5", "--", "sh", "-c", `printf '\033]0;pwned\007oops\r\n' >&2; exit 3`); code != exitOK {
			t.Fatal(stderr)
		}
		defer runCLI(t, "mcp", "remove", "evil")
		code, stdout, stderr := runCLI(t, "mcp", "test", "evil")
		if code != exitError || !strings.Contains(stderr, `\x1b]0;pwned\x07oops`) {
			t.Errorf("mcp test: exit %d\n%q", code, stderr)
		}
		noRawControls(t, "mcp test", stdout+stderr)
		code, stdout, stderr = runCLI(t, "mcp", "list", "--check")
		noRawControls(t, "mcp list", stdout+stderr)
		code, stdout, stderr = runCLI(t, "tool", "list", "--workspace", ws)
		if !strings.Contains(stderr, "MCP server evil did not start") {
			t.Errorf("tool list: %d %q", code, stderr)
		}
		noRawControls(t, "tool list", stdout+stderr)
	})
}
