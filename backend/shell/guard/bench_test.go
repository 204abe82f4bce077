package guard

import (
	"testing"
	"tinyelf/backend/shell/guard/walk"
	"tinyelf/internal/cputime"
)

// BenchmarkCheckCommand measures the guard on a typical agent command, which
// runs before every Bash call and every approval prompt. Besides ns/op
// (wall time, which a loaded machine inflates) it reports the process's CPU
// time per command (cpu-ns/op).
func BenchmarkCheckCommand(b *testing.B) {
	ws := b.TempDir()
	cmd := `cd backend && go test ./... 2>&1 | tail -n 50 && git status --short && rm -rf ./build && echo "done: $(date)"`
	b.ReportAllocs()
	start := cputime.Self()
	for b.Loop() {
		if v := Check(cmd, ws); v.Denied || v.Held {
			b.Fatal(v.Reason, v.Holds)
		}
	}
	b.ReportMetric(float64(cputime.Self()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCheckCommandBattery measures the guard over its whole battery
// (guardBattery: issue 9's commands, TestShellGuardVerdicts' table, the
// signal and power cases and the interpreter table's), destructive and everyday commands alike;
// the figures are per command.
func BenchmarkCheckCommandBattery(b *testing.B) {
	home, ws := guardHome(b)
	opts := walk.Options{Home: home}
	b.ReportAllocs()
	start := cputime.Self()
	n := 0
	battery := guardBattery()
	for b.Loop() {
		for _, tc := range battery {
			CheckWith(tc.cmd, ws, opts)
			n++
		}
	}
	b.ReportMetric(float64(cputime.Self()-start)/float64(n), "cpu-ns/cmd")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/cmd")
}
