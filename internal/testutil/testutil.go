// Package testutil holds the helpers TinyElf's tests share: waiting for a
// condition (never a fixed sleep), waiting for processes to be gone,
// writing fixture files, and a one-page PDF. It is for _test.go files and
// test-only packages; nothing the product runs imports it.
package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// WaitTimeout is how long WaitFor waits: generous, since CI shares two
// cores with other builds; a condition that holds returns at once.
const WaitTimeout = 15 * time.Second

// pollEvery is how often the helpers look again.
const pollEvery = 5 * time.Millisecond

// WaitFor polls cond until it holds, and fails t with what it was waiting
// for ("the session to be evicted") after WaitTimeout.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	waitFor(t, WaitTimeout, what, cond)
}

func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(pollEvery)
	}
}

// WaitGone waits until every pid no longer runs (ProcessGone); after d it
// kills the ones still running, so a failed test leaves none behind, and
// fails t naming what they were.
func WaitGone(t testing.TB, d time.Duration, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, pid := range pids {
		for !ProcessGone(pid) {
			if time.Now().After(deadline) {
				for _, p := range pids {
					kill(p)
				}
				t.Fatalf("%s: process %d still runs after %s", what, pid, d)
			}
			time.Sleep(pollEvery)
		}
	}
}

// WriteFile writes content to path with mode (0 means 0644), creating its
// folders; an existing file keeps its mode, as with os.WriteFile. It
// returns path.
func WriteFile(t testing.TB, path, content string, mode os.FileMode) string {
	t.Helper()
	if mode == 0 {
		mode = 0o644
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTree writes files (name → content, names slash-separated) under
// dir, creating their folders. A content starting with "->" makes a
// symbolic link to the rest of it instead.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// OnePagePDF builds a valid one-page PDF that draws text in Helvetica (a
// small filled square when text is empty), for tests that read PDFs.
func OnePagePDF(text string) []byte {
	content := "q 0 0 1 rg 0 0 10 10 re f Q"
	if text != "" {
		content = fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	var b []byte
	b = append(b, "%PDF-1.4\n"...)
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = len(b)
		b = fmt.Appendf(b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := len(b)
	b = fmt.Appendf(b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		b = fmt.Appendf(b, "%010d 00000 n \n", off)
	}
	return fmt.Appendf(b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
}
