package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"tinyelf/backend/tools"
	"tinyelf/internal/testutil"
)

// newTestWorkspace makes a restricted workspace in a temp folder, filled with
// files (relative path → content), and returns it with its folder.
func newTestWorkspace(t *testing.T, files map[string]string) (*Workspace, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ws")
	testutil.WriteTree(t, dir, files)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, dir
}

// execTool runs one call through a registry holding tool, as the agent would.
func execTool(t *testing.T, tool tools.Tool, args string) tools.CallResult {
	t.Helper()
	r := tools.NewRegistry()
	if err := r.Register(tool); err != nil {
		t.Fatal(err)
	}
	return r.Execute(context.Background(), "t", tool.Info().Name, json.RawMessage(args))
}

func numbered(lines ...string) string {
	var sb strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&sb, "%6d\t%s\n", i+1, l)
	}
	return sb.String()
}

func TestRead(t *testing.T) {
	t.Parallel()
	many := make([]string, 300)
	for i := range many {
		many[i] = fmt.Sprintf("line %d", i+1)
	}
	ws, _ := newTestWorkspace(t, map[string]string{
		"hello.txt":   "alpha\nbeta\ngamma\n",
		"crlf.txt":    "one\r\ntwo\r\n",
		"noeol.txt":   "last line",
		"empty.txt":   "",
		"many.txt":    strings.Join(many, "\n") + "\n",
		"ja.txt":      "こんにちは\n世界🌏\n",
		"sub/a.go":    "package sub\n",
		"long.txt":    strings.Repeat("x", 5000) + "\nshort\n",
		"latin1.txt":  "caf\xe9\n",
		"..dots.txt":  "dots are fine\n",
		"binary.png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"sub/deep.md": "# deep\n",
	})
	read := NewRead(ws)
	tests := []struct {
		name      string
		args      string
		wantError bool
		want      string // exact content when set
		contains  []string
	}{
		{"whole file numbered", `{"path":"hello.txt"}`, false, numbered("alpha", "beta", "gamma"), nil},
		{"absolute path inside", `{"path":"` + filepath.Join(ws.Dir(), "hello.txt") + `"}`, false, numbered("alpha", "beta", "gamma"), nil},
		{"crlf shown without carriage returns", `{"path":"crlf.txt"}`, false, numbered("one", "two"), nil},
		{"no trailing newline", `{"path":"noeol.txt"}`, false, numbered("last line"), nil},
		{"empty file", `{"path":"empty.txt"}`, false, "empty.txt is empty (0 bytes).", nil},
		{"Japanese and emoji", `{"path":"ja.txt"}`, false, numbered("こんにちは", "世界🌏"), nil},
		{"offset and limit", `{"path":"many.txt","offset":10,"limit":3}`, false, "", []string{"    10\tline 10\n    11\tline 11\n    12\tline 12\n", "Showed lines 10-12 of 300. Continue with offset=13"}},
		{"offset as a string is coerced", `{"path":"many.txt","offset":"299"}`, false, "", []string{"   299\tline 299\n   300\tline 300\n"}},
		{"offset past the end", `{"path":"hello.txt","offset":10}`, true, "", []string{"offset 10 is past the end of hello.txt, which has 3 lines"}},
		{"limit only", `{"path":"many.txt","limit":2}`, false, "", []string{"     1\tline 1\n     2\tline 2\n", "offset=3"}},
		{"long line cut", `{"path":"long.txt"}`, false, "", []string{"[line cut at 2000 bytes]", "     2\tshort"}},
		{"invalid UTF-8 is not binary", `{"path":"latin1.txt"}`, false, numbered("caf\uFFFD"), nil},
		{"dotdot-prefixed name inside", `{"path":"..dots.txt"}`, false, numbered("dots are fine"), nil},
		{"binary described, not dumped", `{"path":"binary.png"}`, false, "", []string{"binary.png is a binary file (image/png"}},
		{"nested path", `{"path":"sub/deep.md"}`, false, numbered("# deep"), nil},
		{"directory", `{"path":"sub"}`, true, "", []string{"Path is a directory, not a file: sub. Use ListDir"}},
		{"missing file", `{"path":"nope.txt"}`, true, "", []string{"File not found: nope.txt"}},
		{"missing path parameter", `{}`, true, "", []string{`missing required parameter "path"`}},
		{"zero offset rejected", `{"path":"hello.txt","offset":0}`, true, "", []string{`parameter "offset" must be at least 1, got 0`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := execTool(t, read, tc.args)
			if res.IsError != tc.wantError {
				t.Fatalf("IsError = %v, want %v:\n%s", res.IsError, tc.wantError, res.Content)
			}
			if tc.want != "" && res.Content != tc.want {
				t.Errorf("content:\n%q\nwant:\n%q", res.Content, tc.want)
			}
			for _, s := range tc.contains {
				if !strings.Contains(res.Content, s) {
					t.Errorf("content does not contain %q:\n%s", s, res.Content)
				}
			}
		})
	}
}

func TestReadLargeFiles(t *testing.T) {
	t.Parallel()
	ws, dir := newTestWorkspace(t, nil)
	// 200 KB of 100-byte lines: over the 128 KB auto-truncation.
	var sb strings.Builder
	for i := 1; sb.Len() < 200*1024; i++ {
		fmt.Fprintf(&sb, "%-99d\n", i)
	}
	testutil.WriteTree(t, dir, map[string]string{"medium.txt": sb.String()})
	total := strings.Count(sb.String(), "\n")

	t.Run("over 128 KB is truncated with a way to read on", func(t *testing.T) {
		t.Parallel()
		res := execTool(t, NewRead(ws), `{"path":"medium.txt"}`)
		if res.IsError || res.Truncated {
			t.Fatalf("unexpected: error=%v registry-truncated=%v", res.IsError, res.Truncated)
		}
		if len(res.Content) > 130*1024 {
			t.Errorf("output is %d bytes, want about 128 KB", len(res.Content))
		}
		if !strings.Contains(res.Content, "[Output truncated at 128 KB: showed lines 1-") || !strings.Contains(res.Content, fmt.Sprintf("of %d. Continue with offset=", total)) {
			t.Errorf("missing the continuation note: %s", res.Content[len(res.Content)-200:])
		}
	})

	// A text file just over 10 MB: whole reads are refused, parts work.
	content := "first line\nsecond line\n" + strings.Repeat(strings.Repeat("z", 63)+"\n", 10*1024*1024/64)
	testutil.WriteTree(t, dir, map[string]string{"big.log": content})
	t.Run("over 10 MB needs offset and limit", func(t *testing.T) {
		t.Parallel()
		res := execTool(t, NewRead(ws), `{"path":"big.log"}`)
		if !res.IsError || !strings.Contains(res.Content, "over the 10.0 MB limit") || !strings.Contains(res.Content, "offset and limit") {
			t.Fatalf("got: %s", res.Content)
		}
	})
	t.Run("over 10 MB with offset and limit reads the part", func(t *testing.T) {
		t.Parallel()
		res := execTool(t, NewRead(ws), `{"path":"big.log","offset":2,"limit":1}`)
		if res.IsError || !strings.HasPrefix(res.Content, "     2\tsecond line\n") || !strings.Contains(res.Content, "Continue with offset=3") {
			t.Fatalf("got: %.300s", res.Content)
		}
	})
}
