package mcp

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// StderrLines is how many of a server's last stderr lines its state keeps.
const StderrLines = 20

// maxLogLine bounds one kept line, in bytes.
const maxLogLine = 400

// lineLog keeps the last lines written to it: a stdio server's stderr, and
// the non-JSON lines it printed on stdout. It is an io.Writer safe for
// concurrent use and never blocks the writer.
type lineLog struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
	max     int
}

func newLineLog(max int) *lineLog { return &lineLog{max: max} }

// Write appends p, splitting it into lines; an unfinished last line is kept
// until its newline arrives (or Flush).
func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(l.partial) < maxLogLine*2 {
				l.partial = append(l.partial, p...)
			}
			break
		}
		l.partial = append(l.partial, p[:i]...)
		l.addLocked(string(l.partial))
		l.partial = l.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// Add appends one whole line.
func (l *lineLog) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addLocked(line)
}

func (l *lineLog) addLocked(line string) {
	line = strings.TrimRight(line, "\r")
	if len(line) > maxLogLine {
		cut := maxLogLine
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	l.lines = append(l.lines, line)
	if len(l.lines) > l.max {
		l.lines = append(l.lines[:0], l.lines[len(l.lines)-l.max:]...)
	}
}

// Flush ends an unfinished last line.
func (l *lineLog) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.addLocked(string(l.partial))
		l.partial = l.partial[:0]
	}
}

// Lines returns a copy of the kept lines, oldest first.
func (l *lineLog) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Reset forgets every line (a restarted server starts a fresh log).
func (l *lineLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
	l.partial = l.partial[:0]
}

// stdoutTap passes a stdio server's stdout through unchanged and records the
// lines that cannot be JSON-RPC messages, which the transport would
// otherwise drop without a word: they explain a server that "never answers"
// because it logs to stdout.
type stdoutTap struct {
	r       io.Reader
	garbage *lineLog
	line    []byte
	skip    bool // the current line was already judged
	count   atomic.Int64
}

func (t *stdoutTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	for _, b := range p[:n] {
		switch {
		case b == '\n':
			t.judge(true)
			t.line = t.line[:0]
			t.skip = false
		case t.skip:
		default:
			t.line = append(t.line, b)
			if len(t.line) >= 64 {
				t.judge(false)
			}
		}
	}
	return n, err
}

// judge looks at the start of the current line once: a JSON-RPC message
// starts with '{' (after blanks); anything else is recorded.
func (t *stdoutTap) judge(ended bool) {
	if t.skip {
		return
	}
	s := strings.TrimSpace(string(t.line))
	if s == "" && ended {
		return
	}
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
		t.count.Add(1)
		if ended {
			t.garbage.Add("stdout: " + s)
		} else {
			t.garbage.Add("stdout: " + s + "…")
		}
	}
	t.skip = !ended
}
