package guard

import (
	"strings"
	"testing"
)

func TestSimpleCommands(t *testing.T) {
	t.Parallel()
	show := func(c ShellCommand) string {
		var parts []string
		for _, a := range c.Assigns {
			parts = append(parts, a+"=")
		}
		for _, w := range c.Words {
			if w.Literal {
				parts = append(parts, w.Value)
			} else {
				parts = append(parts, "?"+w.Value)
			}
		}
		for _, f := range c.Writes {
			parts = append(parts, ">"+f)
		}
		return strings.Join(parts, " ")
	}
	tests := []struct {
		script string
		want   []string
	}{
		{"git status", []string{"git status"}},
		{"git status -s && npm test", []string{"git status -s", "npm test"}},
		{"go test ./... | tee out.txt; echo done", []string{"go test ./...", "tee out.txt", "echo done"}},
		{`"git" 'status'`, []string{"git status"}},
		{`g\it status`, []string{"git status"}},
		{"FOO=1 make build", []string{"FOO= make build"}},
		{"FOO=1", []string{"FOO="}},
		{"echo $(rm -rf x)", []string{"echo ?$(rm -rf x)", "rm -rf x"}},
		{"(cd sub && make)", []string{"cd sub", "make"}},
		{"if true; then ls; fi", []string{"true", "ls"}},
		{"f() { rm x; }; f", []string{"rm x", "f"}},
		{"ls *.go", []string{"ls ?*.go"}},
		{"echo {a,b}", []string{"echo ?{a,b}"}},
		{"cat ~/x", []string{"cat ?~/x"}},
		{"echo \"$HOME\"", []string{"echo ?\"$HOME\""}},
		{"$'git' \"st\\atus\"", []string{"git st\\atus"}},
		{"echo x >> ~/.bashrc", []string{"echo x >~/.bashrc"}},
		{"go test ./... 2>&1 >/dev/null", []string{"go test ./..."}},
		{"export PATH=/x", []string{"PATH= export ?PATH=/x"}},
		{"for PATH in /x; do ls; done", []string{"PATH=", "ls"}},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			got, err := SimpleCommands(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			var shownCmds []string
			for _, c := range got {
				shownCmds = append(shownCmds, show(c))
			}
			if strings.Join(shownCmds, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", shownCmds, tc.want)
			}
		})
	}
	if _, err := SimpleCommands("echo 'unterminated"); err == nil {
		t.Error("an unparseable script gave no error")
	}
}

func TestParseBashRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		prefix   bool
		bad      bool
	}{
		{in: "git status:*", want: "git status:*", prefix: true},
		{in: "git status", want: "git status"},
		{in: "Bash(npm run test:*)", want: "npm run test:*", prefix: true},
		{in: "ls *", want: "ls:*", prefix: true},
		{in: `echo "a b"`, want: `echo 'a b'`},
		{in: "", bad: true},
		{in: ":*", bad: true},
		{in: "git status && rm x", bad: true},
		{in: "echo $HOME", bad: true},
		{in: "FOO=1 make", bad: true},
		{in: "echo x > f", bad: true},
	} {
		r, err := ParseBashRule(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseBashRule(%q) accepted %+v", tc.in, r)
			}
			continue
		}
		if err != nil || r.String() != tc.want || r.Prefix != tc.prefix {
			t.Errorf("ParseBashRule(%q) = %q prefix %v, %v; want %q prefix %v", tc.in, r.String(), r.Prefix, err, tc.want, tc.prefix)
		}
	}
}

// TestBashRuleCovers checks that a rule allows exactly what it says: the
// same words, and no redirection, environment or blocked argument.
func TestBashRuleCovers(t *testing.T) {
	t.Parallel()
	const ws = "/home/u/proj"
	for _, tc := range []struct {
		rule, cmd string
		want      bool
	}{
		{"echo:*", "echo hi", true},
		{"echo:*", "echo x >> ~/.bashrc", false},
		{"echo:*", "echo x > out.txt", false},
		{"echo:*", "echo x 2>&1", true},
		{"echo:*", "echo x > /dev/null", true},
		{"echo", "echo", true},
		{"echo", "echo hi", false},
		{"git status", "git status", true},
		{"git status", "LD_PRELOAD=./evil.so git status", false},
		{"git status:*", "LD_PRELOAD=./evil.so git status", false},
		{"git status:*", "PATH=/tmp/evil:$PATH git status", false},
		{"git status:*", "git status --short", true},
		{"git status:*", "git statusx", false},
		{"git status:*", "git -c core.pager=evil status", false},
		{"git status:*", "git status -c x", false},
		{"git log:*", "git log --output=/etc/x", false},
		{"git fetch:*", "git fetch --upload-pack=evil origin", false},
		{"go test:*", "go test ./...", true},
		{"go test:*", "go test -exec ./evil ./...", false},
		{"go test:*", "go test -exec=./evil ./...", false},
		{"go test:*", "go test -toolexec evil ./...", false},
		{"go build:*", "go build -o bin/app .", true},
		{"go build:*", "go build -o /usr/local/bin/app .", false},
		{"find:*", "find . -name x", true},
		{"find:*", "find . -name x -delete", false},
		{"find:*", "find . -exec rm {} +", false},
		{"find:*", "find *", false},
		{"npm install:*", "npm install", true},
		{"npm install:*", "npm install --prefix /usr/lib x", false},
		{"npm install:*", "npm install --prefix ./sub x", true},
		{"npm install:*", "npm install -g x", false},
		{"make:*", "make test", true},
		{"make:*", "make -f evil.mk", false},
		{"make:*", "make SHELL=/tmp/evil test", false},
		{"sed:*", "sed -n 1p f", true},
		{"sed:*", "sed -i s/a/b/ f", false},
		{"sed:*", "sed 's/x/y/e' f", false},
		{"sed:*", "sed 'w /etc/passwd' f", false},
		{"awk:*", "awk '{print $1}' f", true},
		{"awk:*", `awk 'BEGIN{system("rm -rf /")}'`, false},
		{"rsync:*", "rsync -a src/ dst/", true},
		{"rsync:*", "rsync -a --delete src/ dst/", false},
		{"ls:*", "ls *.go", true},
		{"cat:*", "cat $F", true},
		{"tar:*", "tar --to-command=evil -xf a.tar", false},
		{"ssh:*", "ssh -o ProxyCommand=evil host", false},
		{"docker run:*", "docker run -v /:/h alpine", false},
	} {
		t.Run(tc.rule+" vs "+tc.cmd, func(t *testing.T) {
			t.Parallel()
			r, err := ParseBashRule(tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			cmds, err := SimpleCommands(tc.cmd)
			if err != nil || len(cmds) != 1 {
				t.Fatalf("%q: %v %v", tc.cmd, cmds, err)
			}
			if got := r.Covers(cmds[0], ws); got != tc.want {
				t.Errorf("Covers = %v, want %v (risk: %q)", got, tc.want, CommandRisk(cmds[0], ws))
			}
		})
	}
}

func TestSuggestBashRules(t *testing.T) {
	t.Parallel()
	const ws = "/home/u/proj"
	for _, tc := range []struct {
		script string
		want   string
		ok     bool
	}{
		{"git status", "git status:*", true},
		{"git status -s && npm test", "git status:*, npm test:*", true},
		{"ls -la", "ls:*", true},
		{"go test ./... | tail -n 5", "go test:*, tail:*", true},
		{"bash -c 'echo hi'", "bash -c 'echo hi'", true},
		{"python3 script.py --x", "python3 script.py --x", true},
		{"rm -rf build", "rm -rf build", true},
		{"sudo apt-get update", "sudo apt-get update", true},
		{"echo x >> ~/.bashrc", "", false},
		{"LD_PRELOAD=./evil.so git status", "", false},
		{"go test -exec ./evil ./...", "", false},
		{"git status; echo x > f", "git status:*", false},
		{"$CMD run", "", false},
	} {
		rules, ok := SuggestBashRules(tc.script, ws)
		var parts []string
		for _, r := range rules {
			parts = append(parts, r.String())
		}
		if got := strings.Join(parts, ", "); got != tc.want || ok != tc.ok {
			t.Errorf("SuggestBashRules(%q) = %q, %v; want %q, %v", tc.script, got, ok, tc.want, tc.ok)
		}
		// A suggestion always covers the command it was made for.
		if ok {
			cmds, _ := SimpleCommands(tc.script)
			for _, c := range cmds {
				covered := false
				for _, r := range rules {
					covered = covered || r.Covers(c, ws)
				}
				if !covered {
					t.Errorf("%q: the suggested rules %q do not cover %q", tc.script, parts, c.Text)
				}
			}
		}
	}
}

func TestResolvedCommands(t *testing.T) {
	t.Parallel()
	got := ResolvedCommands(`sudo env X=1 rm -rf build; bash -c 'git push -f'`, "")
	var lines []string
	for _, w := range got {
		lines = append(lines, strings.Join(w, " "))
	}
	all := strings.Join(lines, "|")
	for _, want := range []string{"rm -rf build", "git push -f", "sudo env X=1 rm -rf build"} {
		if !strings.Contains(all, want) {
			t.Errorf("ResolvedCommands lacks %q: %q", want, lines)
		}
	}
}

// TestShellCommandLines checks the line form other packages match skill
// allowed-tools against: a command no rule may cover never matches.
func TestShellCommandLines(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script, prefix string
		want           bool
	}{
		{"git status -s", "git status", true},
		{"git statusx", "git status", false},
		{"echo x >> ~/.bashrc", "echo", false},
		{"LD_PRELOAD=./evil.so git status", "git status", false},
		{"go test -exec ./evil ./...", "go test", false},
		{"$CMD status", "git", false},
	} {
		lines, err := ShellCommands(tc.script)
		if err != nil || len(lines) != 1 {
			t.Fatalf("%q: %q %v", tc.script, lines, err)
		}
		if got := CommandMatchesPrefix(lines[0], tc.prefix); got != tc.want {
			t.Errorf("%q vs %q: %v, want %v (line %q)", tc.script, tc.prefix, got, tc.want, lines[0])
		}
	}
	lines, _ := ShellCommands("PATH=/tmp/evil:$PATH; git status")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "\x00") {
		t.Errorf("a PATH assignment is not a line no rule covers: %q", lines)
	}
}
