package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
)

// `run --agent NAME` runs the profile: its instructions and model; an
// unknown name is a usage error that lists the agents there are.
func TestRunWithAgent(t *testing.T) {
	home := cliEnv(t)
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Turn{Text: "Reviewed."})
	st, err := config.OpenStore(filepath.Join(home, config.SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "reviewer", Prompt: "Review like a hawk.", Model: "review-model"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	base := []string{"run", "--workspace", ws, "--base-url", srv.URL}
	code, stdout, stderr := runCLI(t, append(base, "--agent", "reviewer", "-p", "review this")...)
	if code != 0 || !strings.Contains(stdout, "Reviewed.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	req := srv.ChatRequests()[0]
	if b, _ := json.Marshal(req.Body); !strings.Contains(string(b), "Review like a hawk.") || req.Body["model"] != "review-model" {
		t.Errorf("the profile was not used: model %v", req.Body["model"])
	}
	code, _, stderr = runCLI(t, append(base, "--agent", "ghost", "-p", "hi")...)
	if code == 0 || !strings.Contains(stderr, `no such agent profile "ghost"`) || !strings.Contains(stderr, "default, reviewer") {
		t.Errorf("unknown agent: exit %d, stderr %s", code, stderr)
	}
}
