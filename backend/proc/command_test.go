//go:build linux

package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"tinyelf/internal/testutil"
)

// ownerSecrets is what a test owner's settings would name.
func ownerSecrets() Secrets {
	return Secrets{Names: []string{"OPENAI_API_KEY"}, Values: []string{"sk-settings-value-0042"}}
}

// childEnv runs env through cmd and returns what the child saw.
func childEnv(t *testing.T, cmd *Command) []string {
	t.Helper()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("env: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestCommandEnvironment: a child never sees what its owner's secrets
// name, by name or by value, whatever base it starts from; what the caller
// names on purpose is kept; it carries its owner's tag and no other.
func TestCommandEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-settings-value-0042")
	t.Setenv("MY_COPY", "sk-settings-value-0042")
	t.Setenv("TINYELF_TEST_PLAIN", "plain")
	c := NewChildren("", ownerSecrets)
	defer c.KillAll()
	tag := ChildOfEnv + "=" + c.tag
	cases := []struct {
		name      string
		setup     func(*Command)
		want      []string
		wantNot   []string
		wantExact bool
	}{
		{"no environment passed: TinyElf's own, cleaned", func(*Command) {},
			[]string{"TINYELF_TEST_PLAIN=plain", tag}, []string{"OPENAI_API_KEY=", "MY_COPY="}, false},
		{"a base passed is cleaned too", func(cmd *Command) {
			cmd.Environ = []string{"A=1", "OPENAI_API_KEY=other-but-named", "B=x-sk-settings-value-0042-y", ChildOfEnv + "=someone-else"}
		}, []string{"A=1", tag}, []string{"OPENAI_API_KEY=", "B=", "TINYELF_TEST_PLAIN="}, false},
		{"named entries are kept", func(cmd *Command) {
			cmd.Environ = []string{"A=1"}
			cmd.Named = []string{"SERVER_KEY=sk-settings-value-0042", "A=2"}
		}, []string{"A=2", "SERVER_KEY=sk-settings-value-0042", tag}, []string{"A=1"}, false},
		{"the caller's secrets go too", func(cmd *Command) {
			cmd.Environ = []string{"GIT_DIR=/x", "KEEP=1"}
			cmd.Secrets = Secrets{Names: []string{"GIT_*"}}
		}, []string{"KEEP=1", tag}, []string{"GIT_DIR="}, false},
		{"NoInherit: only what is named", func(cmd *Command) {
			cmd.NoInherit = true
			cmd.Environ = []string{"IGNORED=1"}
			cmd.Named = []string{"PATH=" + os.Getenv("PATH"), "TOOL_CRED=sk-settings-value-0042"}
		}, []string{"PATH=" + os.Getenv("PATH"), "TOOL_CRED=sk-settings-value-0042", tag}, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := c.Command("env")
			tc.setup(cmd)
			got := childEnv(t, cmd)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("the child lacks %s:\n%s", w, strings.Join(got, "\n"))
				}
			}
			for _, kv := range got {
				for _, no := range tc.wantNot {
					if strings.HasPrefix(kv, no) {
						t.Errorf("the child sees %s", kv)
					}
				}
				if strings.HasPrefix(kv, ChildOfEnv+"=") && kv != tag {
					t.Errorf("the child carries a foreign tag: %s", kv)
				}
			}
			if tc.wantExact && len(got) != len(tc.want) {
				t.Errorf("the child sees more than it was given:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

// TestCommandSecretsFollowTheSettings: the owner's secrets are asked for at
// each start, so a key saved in the settings is kept from the next child.
func TestCommandSecretsFollowTheSettings(t *testing.T) {
	t.Parallel()
	var names []string
	c := NewChildren("", func() Secrets { return Secrets{Names: slices.Clone(names)} })
	defer c.KillAll()
	run := func() []string {
		cmd := c.Command("env")
		cmd.Environ = []string{"NEW_PROVIDER_KEY=abc", "X=1"}
		return childEnv(t, cmd)
	}
	if got := run(); !slices.Contains(got, "NEW_PROVIDER_KEY=abc") {
		t.Fatalf("before the setting: %v", got)
	}
	names = []string{"NEW_PROVIDER_KEY"}
	if got := run(); slices.Contains(got, "NEW_PROVIDER_KEY=abc") {
		t.Errorf("the key saved since still reaches the child: %v", got)
	}
}

// TestCommandRefusesHandMadeEnv: setting the Cmd's Env or SysProcAttr by
// hand would skip the cleaning; Start says so instead of running.
func TestCommandRefusesHandMadeEnv(t *testing.T) {
	t.Parallel()
	c := NewChildren("", nil)
	defer c.KillAll()
	cmd := c.Command("true")
	cmd.Env = []string{"OPENAI_API_KEY=x"}
	if _, err := cmd.Start(); !errors.Is(err, errHandMade) {
		t.Errorf("Start with Env set: %v", err)
	}
	if cmd.Process != nil {
		t.Error("the child was started anyway")
	}
	det := c.Command("true")
	det.SysProcAttr = &syscall.SysProcAttr{}
	if err := det.Detach(); !errors.Is(err, errHandMade) {
		t.Errorf("Detach with SysProcAttr set: %v", err)
	}
}

// TestCommandOwnGroup: every child leads a process group of its own.
func TestCommandOwnGroup(t *testing.T) {
	t.Parallel()
	c := NewChildren("", nil)
	defer c.KillAll()
	cmd := c.Command("sleep", "300")
	ch, err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); ch.Exited() }()
	st, ok := readProcStat(ch.Pid())
	if !ok {
		t.Fatal("no /proc entry for the child")
	}
	if st.pgid != ch.Pid() || st.pgid == syscall.Getpgrp() {
		t.Errorf("child %d is in group %d (TinyElf's is %d)", ch.Pid(), st.pgid, syscall.Getpgrp())
	}
}

// TestCommandContextKillsTheGroup: when the context ends, what the child
// started goes too, not only the child.
func TestCommandContextKillsTheGroup(t *testing.T) {
	t.Parallel()
	c := NewChildren("", nil)
	defer c.KillAll()
	pidFile := filepath.Join(t.TempDir(), "pids")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := c.CommandContext(ctx, "sh", "-c", `sleep 300 & echo $! >> "$0"; echo $$ >> "$0"; wait`, pidFile)
	ch, err := cmd.Start()
	if err != nil {
		t.Fatal(err)
	}
	pids := readPids(t, pidFile, 2)
	go func() { _ = cmd.Wait(); ch.Exited() }()
	cancel()
	testutil.WaitGone(t, 5*time.Second, "the child processes", pids...)
}

// TestCommandDetach: a detached child (the file manager) gets the clean
// environment but no tag, is not recorded, and survives KillAll, which
// kills a child started normally at the same time.
func TestCommandDetach(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-settings-value-0042")
	root := t.TempDir()
	c := NewChildren(root, ownerSecrets)
	dir := t.TempDir()
	detached := c.Command("sh", "-c", `env > "$0/env"; echo $$ > "$0/pid"; exec sleep 300`, dir)
	if err := detached.Detach(); err != nil {
		t.Fatal(err)
	}
	pid := readPids(t, filepath.Join(dir, "pid"), 1)[0]
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	normal := c.Command("sleep", "300")
	ch, err := normal.Start()
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = normal.Wait() }()
	if c.Live() != 1 {
		t.Errorf("Live = %d, want only the normal child", c.Live())
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env"))
	if strings.Contains(string(env), "OPENAI_API_KEY") || strings.Contains(string(env), ChildOfEnv) {
		t.Errorf("the detached child's environment:\n%s", env)
	}
	c.KillAll()
	testutil.WaitGone(t, 5*time.Second, "the child processes", ch.Pid())
	if testutil.ProcessGone(pid) {
		t.Error("KillAll killed the detached child")
	}
	if st, ok := readProcStat(pid); !ok || st.pgid != pid {
		t.Errorf("the detached child does not lead its own group: %+v", st)
	}
}
