package fs

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"tinyelf/backend/tools"
)

// benchGrepQuery is the search every Grep benchmark runs over
// $(go env GOROOT)/src, opened as a restricted workspace.
var benchGrepQuery = map[string]any{"pattern": `func.*Context\(`, "include": "*.go"}

func goSourceTree(b *testing.B) string {
	b.Helper()
	root := ""
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		root = strings.TrimSpace(string(out))
	}
	if root == "" {
		root = runtime.GOROOT() //nolint:staticcheck // fallback when the go command is missing
	}
	src := filepath.Join(root, "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	return src
}

// BenchmarkGrep compares the two engines with ripgrep run bare (same flags,
// same pattern, output thrown away), over the Go source tree:
//
//	go test -run xxx -bench Grep -benchtime 5x ./backend/tools/
func BenchmarkGrep(b *testing.B) {
	src := goSourceTree(b)
	ws := openWS(b, src, true)
	rg, rgErr := exec.LookPath("rg")

	bench := func(b *testing.B, tool tools.Tool) {
		var res tools.Result
		for b.Loop() {
			var err error
			res, err = tool.Execute(context.Background(), benchGrepQuery)
			if err != nil || res.IsError {
				b.Fatalf("%v %s", err, res.Content)
			}
		}
		b.ReportMetric(float64(res.Meta["matches"].(int)), "matches")
	}
	b.Run("engine=rg", func(b *testing.B) {
		if rgErr != nil {
			b.Skip("rg is not on PATH")
		}
		bench(b, NewGrep(ws, GrepOptions{}))
	})
	b.Run("engine=go", func(b *testing.B) {
		bench(b, NewGrep(ws, GrepOptions{PureGo: true}))
	})
	b.Run("bare-rg", func(b *testing.B) {
		if rgErr != nil {
			b.Skip("rg is not on PATH")
		}
		args := append(append([]string(nil), rgArgs...), "--glob=*.go", "--", benchGrepQuery["pattern"].(string), "./")
		for b.Loop() {
			cmd := exec.Command(rg, args...)
			cmd.Dir = src
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
