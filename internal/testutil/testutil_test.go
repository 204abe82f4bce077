package testutil

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"
)

// recorder is a testing.TB that records a failure and stops the helper
// that failed, as testing.T does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	r.failed = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}

// run calls f with a recorder in a goroutine of its own (Fatalf ends it)
// and returns the failure, "" when there was none.
func run(t *testing.T, f func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func TestWaitFor(t *testing.T) {
	t.Parallel()
	start := time.Now()
	n := 0
	if msg := run(t, func(tb testing.TB) { WaitFor(tb, "three looks", func() bool { n++; return n == 3 }) }); msg != "" {
		t.Fatalf("failed: %s", msg)
	}
	if time.Since(start) > time.Second {
		t.Errorf("a condition that held took %s", time.Since(start))
	}
	msg := run(t, func(tb testing.TB) { waitFor(tb, 50*time.Millisecond, "the impossible", func() bool { return false }) })
	if !strings.Contains(msg, "waiting for the impossible") {
		t.Errorf("failure = %q", msg)
	}
}

func TestProcessGoneAndWaitGone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sleep")
	}
	t.Parallel()
	// A child that exits on its own, left unreaped for a moment: a zombie
	// is gone.
	quick := exec.Command("sh", "-c", "exit 0")
	if err := quick.Start(); err != nil {
		t.Fatal(err)
	}
	if msg := run(t, func(tb testing.TB) { WaitGone(tb, 10*time.Second, "the quick child", quick.Process.Pid) }); msg != "" {
		t.Errorf("an exited child: %s", msg)
	}
	_ = quick.Wait()
	if !ProcessGone(quick.Process.Pid) {
		t.Error("a reaped child is not gone")
	}
	// A child that runs is not gone; WaitGone kills it when it gives up.
	slow := exec.Command("sleep", "300")
	if err := slow.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- slow.Wait() }()
	if ProcessGone(slow.Process.Pid) {
		t.Fatal("a running child is gone")
	}
	msg := run(t, func(tb testing.TB) { WaitGone(tb, 100*time.Millisecond, "the slow child", slow.Process.Pid) })
	if !strings.Contains(msg, "the slow child: process") || !strings.Contains(msg, "still runs") {
		t.Errorf("failure = %q", msg)
	}
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("WaitGone did not kill the child it gave up on")
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a", "b", "c.txt")
	if got := WriteFile(t, p, "hello", 0); got != p {
		t.Errorf("returned %q", got)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "hello" {
		t.Errorf("content %q", b)
	}
	if runtime.GOOS != "windows" {
		if st.Mode().Perm() != 0o644 {
			t.Errorf("mode %v", st.Mode().Perm())
		}
		x := WriteFile(t, filepath.Join(filepath.Dir(p), "x.sh"), "#!/bin/sh\n", 0o755)
		if st, _ := os.Stat(x); st.Mode().Perm() != 0o755 {
			t.Errorf("mode %v, want 0755", st.Mode().Perm())
		}
	}
}

func TestOnePagePDFReads(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"Quarterly figures", ""} {
		b := OnePagePDF(text)
		r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if r.NumPage() != 1 {
			t.Errorf("%q: %d pages", text, r.NumPage())
		}
		content, err := r.Page(1).GetPlainText(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(content, text) {
			t.Errorf("page text %q, want %q", content, text)
		}
	}
}
