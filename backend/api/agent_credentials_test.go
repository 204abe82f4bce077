package api

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"tinyelf/backend/config"
)

// An agent profile's own credentials (for its user tools) never reach the
// UI, and saving the profile from the UI, which does not have them, keeps
// them.
func TestAgentCredentialsStayInTheSettingsFile(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	ctx := context.Background()
	const secret = "ops-key-5f1e2d3c4b"
	if err := h.svc.settings.Update(func(s *config.Settings) error {
		s.Agents = []config.Agent{{Name: "ops", Credentials: map[string]config.Credential{"myapi": {APIKey: secret}}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	agents, err := h.svc.ListAgents(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	settings, err := h.svc.GetSettings(ctx, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := json.Marshal([]any{agents, settings})
	if strings.Contains(string(shown), secret) {
		t.Fatalf("an agent's credential reached the UI: %s", shown)
	}
	if _, err := h.svc.SaveAgent(ctx, SaveAgentArgs{Agent: config.Agent{Name: "ops", Description: "runs things"}}); err != nil {
		t.Fatal(err)
	}
	a, _ := h.svc.settings.Get().Agent("ops")
	if a.Description != "runs things" || a.Credentials["myapi"].APIKey != secret {
		t.Errorf("saving the profile lost its credentials: %+v", a)
	}
	if !slices.Contains(h.svc.settings.Get().SecretValues(), secret) {
		t.Error("an agent's credential is not among the secrets kept from child processes")
	}
}
