package shell

import (
	"strings"
	"testing"
)

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
