package mcp

import (
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineLog(t *testing.T) {
	t.Parallel()
	l := newLineLog(3)
	_, _ = l.Write([]byte("one\ntw"))
	_, _ = l.Write([]byte("o\r\nthree\nfour\nfi"))
	if got := l.Lines(); !slices.Equal(got, []string{"two", "three", "four"}) {
		t.Errorf("lines = %q", got)
	}
	l.Flush()
	if got := l.Lines(); !slices.Equal(got, []string{"three", "four", "fi"}) {
		t.Errorf("after flush = %q", got)
	}
	l.Add(strings.Repeat("é", 400))
	if got := l.Lines()[2]; len(got) > maxLogLine+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("long line kept as %d bytes", len(got))
	}
	l.Reset()
	if len(l.Lines()) != 0 {
		t.Error("Reset kept lines")
	}
}

// TestStdoutTap: protocol lines pass through untouched; other lines are
// recorded, however the reads split them.
func TestStdoutTap(t *testing.T) {
	t.Parallel()
	in := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"Server ready on stdio!\n" +
		"   \n" +
		`  [{"batch":true}]` + "\n" +
		strings.Repeat("z", 100) + "\n" +
		"last words"
	log := newLineLog(10)
	tap := &stdoutTap{r: iotest.OneByteReader(strings.NewReader(in)), garbage: log}
	out, err := io.ReadAll(tap)
	must(t, err)
	if string(out) != in {
		t.Error("the tap changed the stream")
	}
	want := []string{"stdout: Server ready on stdio!", "stdout: " + strings.Repeat("z", 64) + "…"}
	if got := log.Lines(); !slices.Equal(got, want) || tap.count.Load() != 2 {
		t.Errorf("recorded %q (%d), want %q", got, tap.count.Load(), want)
	}
}
