package tools

import (
	"strings"
	"testing"
)

// BenchmarkCheckCommand measures the guard on a typical agent command, which
// runs before every Bash call and every approval prompt.
func BenchmarkCheckCommand(b *testing.B) {
	ws, err := OpenWorkspace(b.TempDir(), true)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	cmd := `cd backend && go test ./... 2>&1 | tail -n 50 && git status --short && rm -rf ./build && echo "done: $(date)"`
	b.ReportAllocs()
	for b.Loop() {
		if v := CheckCommand(cmd, ws); v.Denied {
			b.Fatal(v.Reason)
		}
	}
}

// BenchmarkOutputBufferWrite measures how fast command output is taken in
// once the head is full (the steady state of a long, noisy command).
func BenchmarkOutputBufferWrite(b *testing.B) {
	chunk := []byte(strings.Repeat("build output line\n", 32*1024/18))
	buf := newOutputBuffer(DefaultBashMaxOutputBytes)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		_, _ = buf.Write(chunk)
	}
}
