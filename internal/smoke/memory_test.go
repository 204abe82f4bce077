package smoke

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeProc makes a fake /proc with one status file per process.
func writeProc(t *testing.T, procs map[int][3]string) string {
	t.Helper()
	dir := t.TempDir()
	for pid, p := range procs { // name, ppid, rss
		d := filepath.Join(dir, fmt.Sprint(pid))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		status := fmt.Sprintf("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t%d\nPPid:\t%s\n", p[0], pid, p[1])
		if p[2] != "" {
			status += "VmRSS:\t  " + p[2] + " kB\n"
		}
		if err := os.WriteFile(filepath.Join(d, "status"), []byte(status), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rollup := "558f6fb84000-7ffd54d11000 ---p 00000000 00:00 0 [rollup]\nRss:  204800 kB\nPss:  102400 kB\nPss_Anon:  51200 kB\n"
	if err := os.WriteFile(filepath.Join(dir, "100", "smaps_rollup"), []byte(rollup), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"self", "meminfo"} { // not processes
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmdlines := map[int]string{
		101: "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitWebProcess\x007\x0013",
		102: "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/WebKitNetworkProcess\x008",
		104: "",
	}
	for pid, c := range cmdlines {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(pid), "cmdline"), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTreeMemory(t *testing.T) {
	proc := writeProc(t, map[int][3]string{
		1:   {"init", "0", "1000"},
		100: {"tinyelf", "1", "204800"},
		101: {"WebKitWebProces", "100", "194560"}, // as the kernel cuts it
		102: {"WebKitNetworkPr", "100", "61440"},
		103: {"bwrap", "100", ""},               // a kernel-thread-like entry without VmRSS
		104: {"WebKitWebProces", "103", "1024"}, // no cmdline: the cut name stays
		200: {"dbus-daemon", "1", "5000"},       // not a descendant
		300: {"loopA", "301", "10"},             // a parent loop, not in the tree
		301: {"loopB", "300", "10"},
	})
	tests := []struct {
		name    string
		root    int
		total   int
		str     string
		wantErr bool
	}{
		{"app and WebKit", 100, 204800 + 194560 + 61440 + 1024,
			"451 MB RSS in all (tinyelf 200 MB, WebKitNetworkProcess 60 MB, WebKitWebProces 1 MB, WebKitWebProcess 190 MB, bwrap 0 MB); 100 MB PSS", false},
		{"leaf", 102, 61440, "60 MB RSS in all (WebKitNetworkProcess 60 MB)", false},
		{"gone", 999, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := TreeMemory(proc, tt.root)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("TreeMemory(%d) = %v, want an error", tt.root, m)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := m.TotalkB(); got != tt.total {
				t.Errorf("TotalkB = %d, want %d", got, tt.total)
			}
			if got := m.String(); got != tt.str {
				t.Errorf("String =\n %q, want\n %q", got, tt.str)
			}
		})
	}
	m, _ := TreeMemory(proc, 100)
	if got := m.ByName()["WebKitWebProcess"]; got != 194560 {
		t.Errorf("ByName WebKitWebProcess = %d, want %d", got, 194560)
	}
}

func TestTreeMemoryNoProc(t *testing.T) {
	if _, err := TreeMemory(filepath.Join(t.TempDir(), "absent"), 1); err == nil {
		t.Fatal("want an error for a missing proc folder")
	}
}

func TestTreeMemoryThisProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m, err := TreeMemory("/proc", os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalkB() <= 0 || m.Processes[0].PID != os.Getpid() {
		t.Fatalf("TreeMemory(self) = %v", m)
	}
}
