package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSkillFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tinyelf skills validate prints every problem with its file and line and
// exits 1 when any is not a warning; list, trust and show work on a
// workspace's project skills.
func TestSkillsCommand(t *testing.T) {
	cliEnv(t)
	t.Setenv("HOME", t.TempDir())
	ws := t.TempDir()
	bad := filepath.Join(ws, ".tinyelf", "skills", "Bad_Name")
	writeSkillFile(t, filepath.Join(bad, "SKILL.md"), "---\nname: Bad_Name\ndescription: \"\"\ncolour: blue\n---\nBody.\n")
	broken := filepath.Join(ws, ".tinyelf", "skills", "broken")
	writeSkillFile(t, filepath.Join(broken, "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\nBody.\n")
	good := filepath.Join(ws, ".tinyelf", "skills", "deploy")
	writeSkillFile(t, filepath.Join(good, "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app to staging.\nallowed-tools: Bash(git:*)\n---\nRun git status.\n")

	code, out, _ := runCLI(t, "skills", "validate", bad)
	if code != exitError {
		t.Errorf("validate of a bad skill: exit %d", code)
	}
	for _, want := range []string{filepath.Join(bad, "SKILL.md") + ":2:", filepath.Join(bad, "SKILL.md") + ":3:", filepath.Join(bad, "SKILL.md") + ":4:"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate output lacks %q:\n%s", want, out)
		}
	}
	if code, out, _ := runCLI(t, "skills", "validate", good); code != exitOK || !strings.Contains(out, "is a valid skill") {
		t.Errorf("validate of a good skill: %d %s", code, out)
	}
	// Front matter that is not YAML: validate and list both give the
	// parser's message at the file's line, and the skill is not loaded.
	yamlMsg := filepath.Join(broken, "SKILL.md") + ":3: the frontmatter is not valid YAML: line 3: did not find expected ',' or ']'"
	code, out, errOut := runCLI(t, "skills", "validate", broken)
	if code != exitError || !strings.Contains(out, yamlMsg) || !strings.Contains(errOut, "TinyElf skips it and lists it as invalid") {
		t.Errorf("validate of broken YAML: %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "skills", "list", "--workspace", ws)
	if code != exitOK || !strings.Contains(out, "deploy") || !strings.Contains(out, "untrusted") ||
		!strings.Contains(out, "tinyelf skills trust deploy --workspace "+ws) || !strings.Contains(out, "test-fix") {
		t.Errorf("list: %d\n%s", code, out)
	}
	if !strings.Contains(out, "Skipped, not loaded:\n") || !strings.Contains(out, "\n  broken: "+yamlMsg) || strings.Contains(out, "[unclosed") {
		t.Errorf("list does not report the broken skill with the parser's message:\n%s", out)
	}
	if code, out, errOut := runCLI(t, "skills", "trust", "deploy", "--workspace", ws); code != exitOK || !strings.Contains(out, "trusted") {
		t.Errorf("trust: %d %s %s", code, out, errOut)
	}
	code, out, _ = runCLI(t, "skills", "list", "--workspace", ws, "--output", "json")
	if code != exitOK || !strings.Contains(out, `"trust": "trusted"`) {
		t.Errorf("list after trust: %s", out)
	}
	if code, out, _ := runCLI(t, "skills", "show", "test-fix"); code != exitOK || !strings.Contains(out, "name: test-fix") {
		t.Errorf("show: %d %s", code, out)
	}
	// The default index is on in fresh settings; the user removed it
	// here (a test never reaches the internet).
	writeSkillFile(t, filepath.Join(os.Getenv("TINYELF_HOME"), "settings.json"), `{"version": 2, "skills": {"hubIndexes": []}}`)
	if code, _, errOut := runCLI(t, "skills", "search", "lint"); code != exitError || !strings.Contains(errOut, "Settings → Skills") {
		t.Errorf("search without an index: %d %s", code, errOut)
	}
	if code, _, _ := runCLI(t, "skills", "frobnicate"); code != exitUsage {
		t.Errorf("unknown subcommand: %d", code)
	}
	if code, _, _ := runCLI(t, "skills", "show"); code != exitUsage {
		t.Errorf("show without a name: %d", code)
	}
}
