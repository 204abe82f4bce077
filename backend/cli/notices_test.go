package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"tinyelf/backend/llm/llmtest"
)

// syncBuffer is a bytes.Buffer safe for a command's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveOnce starts `tinyelf serve`, waits for its URL, stops it and returns
// its exit code and stderr.
func serveOnce(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, append([]string{"serve"}, args...), pw, &stderr, Options{}); pw.Close() }()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "?token=") {
			break
		}
	}
	go io.Copy(io.Discard, pr)
	cancel()
	select {
	case code := <-done:
		return code, stderr.String()
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop")
		return 0, ""
	}
}

// TestCorruptSettingsAreReported gives every command that reads the
// settings a corrupt file: each says so once on stderr, naming the copy it
// kept, and goes on with the defaults.
func TestCorruptSettingsAreReported(t *testing.T) {
	home := cliEnv(t)
	ws := t.TempDir()
	llm := llmtest.NewServer(t)
	llm.SetDefault(llmtest.Turn{Text: "ok"})
	path := filepath.Join(home, "settings.json")
	copyName := regexp.MustCompile(regexp.QuoteMeta(path) + `\.corrupt-[0-9TZ-]+`)
	commands := []struct {
		name string
		run  func() (int, string)
	}{
		{"mcp list", func() (int, string) { c, _, e := runCLI(t, "mcp", "list"); return c, e }},
		{"mcp add", func() (int, string) { c, _, e := runCLI(t, "mcp", "add", "x", "--", "true"); return c, e }},
		{"tool list", func() (int, string) { c, _, e := runCLI(t, "tool", "list", "--workspace", ws); return c, e }},
		{"tool", func() (int, string) {
			c, _, e := runCLI(t, "tool", "Glob", "--workspace", ws, "--args", `{"pattern":"*"}`)
			return c, e
		}},
		{"run", func() (int, string) {
			c, _, e := runCLI(t, "run", "--workspace", ws, "--base-url", llm.URL, "--model", "m", "-p", "hi")
			return c, e
		}},
		{"serve", func() (int, string) { return serveOnce(t) }},
	}
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			if err := os.WriteFile(path, []byte(`{"version":1,"theme":`), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stderr := cmd.run()
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := strings.Count(stderr, "could not be read"); n != 1 {
				t.Errorf("the corrupt file was reported %d times:\n%s", n, stderr)
			}
			aside := copyName.FindString(stderr)
			if aside == "" {
				t.Fatalf("stderr does not name the copy:\n%s", stderr)
			}
			if b, err := os.ReadFile(aside); err != nil || string(b) != `{"version":1,"theme":` {
				t.Errorf("the copy %s holds %q (%v)", aside, b, err)
			}
		})
	}
}
