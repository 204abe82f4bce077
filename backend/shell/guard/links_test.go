package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShellGuardMultiCallLinks checks that a program reached through a link
// is judged both as the name it is called by and as the file it is: a
// multi-call program (systemctl as shutdown, systemd as init, busybox as
// anything) acts as the name, any other program as what it is.
func TestShellGuardMultiCallLinks(t *testing.T) {
	t.Parallel()
	home, ws := guardHome(t)
	bin := filepath.Join(ws, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"systemctl", "systemd", "rm", "busybox"} {
		if err := os.WriteFile(filepath.Join(bin, f), []byte("\x7fELF\x00binary"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"shutdown": "systemctl", "reboot": "systemctl", "init": "systemd", "ls": "rm", "kill": "busybox", "poweroff": "busybox"} {
		if err := os.Symlink(filepath.Join(bin, target), filepath.Join(bin, link)); err != nil {
			t.Fatal(err)
		}
	}
	checkCasesIn(t, home, ws, []guardCase{
		{"./bin/shutdown -r +0", refused, "would shut down or restart the computer."},
		{bin + "/reboot", refused, "would shut down or restart the computer."},
		{"./bin/init 0", refused, "would shut down or restart the computer."},
		{"./bin/kill -9 1", refused, toInit},
		{"sudo ./bin/poweroff", refused, "would shut down or restart the computer."},
		{"./bin/ls -rf /", refused, "would recursively delete the root folder /."},
		{"./bin/systemctl reboot", refused, "would shut down or restart the computer."},
		{"./bin/shutdown --help", mayRun, ""},
		{"./bin/ls -l", mayRun, ""},
	})
}
