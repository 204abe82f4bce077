package api

import (
	"context"
	"slices"
	"strings"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/mcp"
	"tinyelf/backend/tools/agent"
)

// AgentView is an agent profile as Settings → Agents shows it: direct MCP
// servers' secrets masked, its credentials left out, and whether it is the default one (which cannot
// be deleted or renamed).
type AgentView struct {
	config.Agent
	Default bool `json:"default"`
}

// ListAgents returns the agent profiles, the default one first.
func (s *Service) ListAgents(context.Context, struct{}) ([]AgentView, error) {
	list := s.settings.Get().AgentList()
	out := make([]AgentView, len(list))
	for i, a := range list {
		for j := range a.DirectMCPServers {
			a.DirectMCPServers[j] = config.MaskMCPServer(a.DirectMCPServers[j])
		}
		a.Credentials = nil // secrets, never sent back
		if a.AllowedTools == nil {
			a.AllowedTools = []string{}
		}
		out[i] = AgentView{Agent: a, Default: a.Name == config.DefaultAgent}
	}
	return out, nil
}

// SaveAgentArgs adds or replaces an agent profile. Rename, when set, is the
// profile's previous name; masked direct-server secrets keep their stored
// values.
type SaveAgentArgs struct {
	Agent  config.Agent `json:"agent"`
	Rename string       `json:"rename,omitempty"`
}

// SaveAgent adds or updates an agent profile, after checking it: a valid
// name, a known permission mode and provider, limits in range, and direct
// MCP servers that are valid stdio servers. The default profile keeps its
// name.
func (s *Service) SaveAgent(_ context.Context, a SaveAgentArgs) ([]AgentView, error) {
	ag := a.Agent
	ag.Name = strings.TrimSpace(ag.Name)
	ag.Description = strings.TrimSpace(ag.Description)
	ag.Provider, ag.Model = strings.TrimSpace(ag.Provider), strings.TrimSpace(ag.Model)
	ag.BackgroundProvider, ag.BackgroundModel = strings.TrimSpace(ag.BackgroundProvider), strings.TrimSpace(ag.BackgroundModel)
	ag.AllowedTools = cleanNames(ag.AllowedTools)
	old := a.Rename
	if old == "" {
		old = ag.Name
	}
	if old == config.DefaultAgent && ag.Name != config.DefaultAgent {
		return nil, invalidf("the default agent cannot be renamed: make a new agent instead")
	}
	if err := config.ValidateAgent(ag); err != nil {
		return nil, invalidf("%v", err)
	}
	if ag.PermissionMode != "" {
		m, err := engine.ParseMode(ag.PermissionMode)
		if err != nil {
			return nil, invalidf("%v", err)
		}
		ag.PermissionMode = string(m)
	}
	eff := s.settings.Get().WithEnvironment(s.opts.Getenv)
	for _, p := range []string{ag.Provider, ag.BackgroundProvider} {
		if _, ok := eff.Provider(p); p != "" && !ok {
			return nil, invalidf("there is no provider %q: add it in Settings → Providers first", p)
		}
	}
	for _, m := range ag.DirectMCPServers {
		if err := mcp.ValidateServer(m); err != nil {
			return nil, invalidf("direct MCP server: %v", err)
		}
	}
	err := s.settings.Update(func(st *config.Settings) error {
		i := slices.IndexFunc(st.Agents, func(x config.Agent) bool { return x.Name == old })
		if old != ag.Name && slices.ContainsFunc(st.Agents, func(x config.Agent) bool { return x.Name == ag.Name }) {
			return invalidf("an agent named %q already exists", ag.Name)
		}
		if i >= 0 {
			// The profile's credentials are set in the settings file only;
			// the UI never has them, so a save keeps them.
			ag.Credentials = st.Agents[i].Credentials
			stored := st.Agents[i].DirectMCPServers
			for j, m := range ag.DirectMCPServers {
				if k := slices.IndexFunc(stored, func(x config.MCPServer) bool { return x.Name == m.Name }); k >= 0 {
					ag.DirectMCPServers[j] = config.UnmaskMCPServer(m, stored[k])
				}
			}
		}
		for _, m := range ag.DirectMCPServers {
			if config.HasMasked(m) {
				return invalidf("a value of direct MCP server %s is still masked (%s…); type the secret again", m.Name, config.MaskPrefix)
			}
		}
		if i >= 0 {
			st.Agents[i] = ag
		} else {
			st.Agents = append(st.Agents, ag)
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return s.ListAgents(context.Background(), struct{}{})
}

// DeleteAgent removes an agent profile. The default one cannot be deleted;
// sessions of a deleted profile go on with the default agent.
func (s *Service) DeleteAgent(_ context.Context, a NameArgs) ([]AgentView, error) {
	if a.Name == config.DefaultAgent {
		return nil, invalidf("the default agent cannot be deleted (it is what every chat falls back to); edit it instead")
	}
	err := s.settings.Update(func(st *config.Settings) error {
		n := len(st.Agents)
		st.Agents = slices.DeleteFunc(st.Agents, func(x config.Agent) bool { return x.Name == a.Name })
		if len(st.Agents) == n {
			return notFoundf("no agent named %q", a.Name)
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	return s.ListAgents(context.Background(), struct{}{})
}

// cleanNames trims a list of tool names and drops empty and repeated ones.
func cleanNames(in []string) []string {
	var out []string
	for _, n := range in {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// ListSubagents returns the subagents a session started in this process,
// newest first, for its tool cards after a reload.
func (s *Service) ListSubagents(_ context.Context, a SessionArgs) ([]agent.SubagentRun, error) {
	runs := s.engine.Subagents().RunsOf(a.SessionID)
	if runs == nil {
		runs = []agent.SubagentRun{}
	}
	return runs, nil
}
