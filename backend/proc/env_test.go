package proc

import (
	"slices"
	"testing"
)

func TestCleanEnv(t *testing.T) {
	t.Parallel()
	secrets := Secrets{
		Names:  []string{"OPENAI_API_KEY", "TINYELF_*TOKEN*"},
		Values: []string{"sk-settings-0123456789", "short"},
	}
	base := []string{
		"PATH=/usr/bin", "HOME=/home/u", "OPENAI_API_KEY=sk-env", "TINYELF_SERVE_TOKEN=abc",
		"TINYELF_HOME=/data", "MY_COPY=sk-settings-0123456789", "AUTH_HEADER=Bearer sk-settings-0123456789",
		"USER=short", ChildOfEnv + "=1-2", "NOEQUALS", "=odd", "PATH=/usr/local/bin:/usr/bin",
	}
	got := CleanEnv(base, secrets, "GITHUB_TOKEN=explicit", "HOME=/override")
	want := []string{"PATH=/usr/local/bin:/usr/bin", "HOME=/override", "TINYELF_HOME=/data", "USER=short", "GITHUB_TOKEN=explicit"}
	if !slices.Equal(got, want) {
		t.Errorf("CleanEnv =\n%q\nwant\n%q", got, want)
	}
	if base[2] != "OPENAI_API_KEY=sk-env" {
		t.Error("CleanEnv changed its input")
	}
}
