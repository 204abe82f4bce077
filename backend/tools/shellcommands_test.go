package tools

import (
	"strings"
	"testing"
)

func TestShellCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   []string
	}{
		{"git status", []string{"git status"}},
		{"git status -s && npm test", []string{"git status -s", "npm test"}},
		{"go test ./... | tee out.txt; echo done", []string{"go test ./...", "tee out.txt", "echo done"}},
		{`"git" 'status'`, []string{"git status"}},
		{`g\it status`, []string{"git status"}},
		{"FOO=1 make build", []string{"make build"}},
		{"FOO=1", nil},
		{"echo $(rm -rf x)", []string{"echo \x00$(rm -rf x)", "rm -rf x"}},
		{"(cd sub && make)", []string{"cd sub", "make"}},
		{"if true; then ls; fi", []string{"true", "ls"}},
		{"f() { rm x; }; f", []string{"rm x", "f"}},
		{"ls *.go", []string{"ls \x00*.go"}},
		{"echo \"$HOME\"", []string{"echo \x00\"$HOME\""}},
		{"$'git' \"st\\atus\"", []string{"git st\\atus"}},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			got, err := ShellCommands(tc.script)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := ShellCommands("echo 'unterminated"); err == nil {
		t.Error("an unparseable script gave no error")
	}
}

func TestCommandMatchesPrefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd, prefix string
		want        bool
	}{
		{"git status", "git status", true},
		{"git status -s", "git status", true},
		{"git statusx", "git status", false},
		{"git  status", "git status", false}, // ShellCommands never produces double spaces
		{"git status", "  git   status ", true},
		{"git", "git status", false},
		{"anything", "", false},
		{"echo \x00$(x)", "echo", true},
		{"\x00$CMD status", "git", false},
	} {
		if got := CommandMatchesPrefix(tc.cmd, tc.prefix); got != tc.want {
			t.Errorf("CommandMatchesPrefix(%q, %q) = %v", tc.cmd, tc.prefix, got)
		}
	}
}
