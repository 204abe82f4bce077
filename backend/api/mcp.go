package api

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp"
)

// LiveMCPState is the live event that carries an MCP server's new state
// (an mcp.Change) to the UI.
const LiveMCPState = "mcp.state"

// publishMCP sends an MCP state change to the UI.
func (s *Service) publishMCP(sessionID string, c mcp.Change) {
	b, _ := json.Marshal(c)
	s.bus.Publish(Event{SessionID: sessionID, Type: LiveMCPState, Time: time.Now(), Data: b})
}

// MCPServerView is a configured server with its live state. Env and header
// values that look like secrets are masked in Config (config.MaskMCPServer);
// SaveMCPServer keeps the stored value for a masked value sent back as is.
type MCPServerView struct {
	Config config.MCPServer `json:"config"`
	State  mcp.ServerState  `json:"state"`
	Tools  []string         `json:"tools"`
}

// ListMCPServers returns the user's MCP servers with their live states and
// tools. Each server lists the names its own tools are offered under, as
// the MCP service assigned them (shortened or hashed names included), so a
// server whose name starts another's ("git", "github") shows only its own.
func (s *Service) ListMCPServers(context.Context, struct{}) ([]MCPServerView, error) {
	out := []MCPServerView{}
	for _, c := range s.settings.Get().MCPServers {
		st, _ := s.userMCP.State(c.Name)
		v := MCPServerView{Config: config.MaskMCPServer(c), State: st, Tools: []string{}}
		v.Tools = append(v.Tools, st.Tools...)
		out = append(out, v)
	}
	return out, nil
}

// SaveMCPServerArgs adds or replaces a server; Rename is its former name.
type SaveMCPServerArgs struct {
	Server config.MCPServer `json:"server"`
	Rename string           `json:"rename,omitempty"`
}

// SaveMCPServer adds or updates a server and (re)starts it. Values still
// masked as ListMCPServers showed them keep what is stored.
func (s *Service) SaveMCPServer(_ context.Context, a SaveMCPServerArgs) ([]MCPServerView, error) {
	if err := mcp.ValidateServer(a.Server); err != nil {
		return nil, invalidf("%v", err)
	}
	err := s.settings.Update(func(st *config.Settings) error {
		old := a.Rename
		if old == "" {
			old = a.Server.Name
		}
		if i := slices.IndexFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == old }); i >= 0 {
			a.Server = config.UnmaskMCPServer(a.Server, st.MCPServers[i])
		}
		if config.HasMasked(a.Server) {
			return invalidf("a value of %s is still masked (%s…); type the secret again", a.Server.Name, config.MaskPrefix)
		}
		if old != a.Server.Name && slices.ContainsFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == a.Server.Name }) {
			return invalidf("an MCP server named %q already exists", a.Server.Name)
		}
		if i := slices.IndexFunc(st.MCPServers, func(m config.MCPServer) bool { return m.Name == old }); i >= 0 {
			st.MCPServers[i] = a.Server
		} else {
			st.MCPServers = append(st.MCPServers, a.Server)
		}
		return nil
	})
	if err != nil {
		return nil, mapErr(err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// RemoveMCPServer deletes a server and stops it; its sign-in goes with it.
func (s *Service) RemoveMCPServer(_ context.Context, a NameArgs) ([]MCPServerView, error) {
	if err := mcp.RemoveServer(s.settings, a.Name); err != nil {
		return nil, notFoundf("%v", err)
	}
	_ = mcp.ForgetSignIn(s.tokens, a.Name)
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// EnableArgs turns a server on or off.
type EnableArgs struct {
	Name    string `json:"name"`
	Enabled bool   `json:"enabled"`
}

// SetMCPServerEnabled enables or disables a server.
func (s *Service) SetMCPServerEnabled(_ context.Context, a EnableArgs) ([]MCPServerView, error) {
	if err := mcp.SetServerDisabled(s.settings, a.Name, !a.Enabled); err != nil {
		return nil, notFoundf("%v", err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	return s.ListMCPServers(context.Background(), struct{}{})
}

// RestartMCPServer retries a failed or disconnected server.
func (s *Service) RestartMCPServer(_ context.Context, a NameArgs) ([]MCPServerView, error) {
	if err := s.userMCP.Restart(a.Name); err != nil {
		return nil, notFoundf("%v", err)
	}
	return s.ListMCPServers(context.Background(), struct{}{})
}

// ImportMCPArgs carries a Claude Desktop / .mcp.json config.
type ImportMCPArgs struct {
	Content string `json:"content"`
}

// ImportMCPResult says what an import did.
type ImportMCPResult struct {
	Report  mcp.ImportReport `json:"report"`
	Servers []MCPServerView  `json:"servers"`
}

// ImportMCPConfig adds the servers of a Claude Desktop
// claude_desktop_config.json or a .mcp.json, and reports what was imported
// and what was skipped and why.
func (s *Service) ImportMCPConfig(_ context.Context, a ImportMCPArgs) (ImportMCPResult, error) {
	var report mcp.ImportReport
	err := s.settings.Update(func(st *config.Settings) error {
		servers, r, err := mcp.ImportServers([]byte(a.Content), st.MCPServers, s.lookupEnv)
		if err != nil {
			return invalidf("%v", err)
		}
		report = r
		st.MCPServers = append(st.MCPServers, servers...)
		return nil
	})
	if err != nil {
		return ImportMCPResult{}, mapErr(err)
	}
	s.userMCP.Update(s.settings.Get().MCPServers)
	list, _ := s.ListMCPServers(context.Background(), struct{}{})
	return ImportMCPResult{Report: report, Servers: list}, nil
}

func (s *Service) lookupEnv(k string) (string, bool) {
	v := s.opts.Getenv(k)
	return v, v != ""
}

// TestMCPArgs names a stored server or carries an unsaved one; with both,
// Server is an edit of the stored server Name (its masked values stand for
// the stored ones).
type TestMCPArgs struct {
	Name   string            `json:"name,omitempty"`
	Server *config.MCPServer `json:"server,omitempty"`
}

// TestMCPServer starts a server on its own, lists what it offers and stops
// it again.
func (s *Service) TestMCPServer(ctx context.Context, a TestMCPArgs) (mcp.TestReport, error) {
	var srv config.MCPServer
	switch {
	case a.Server != nil:
		srv = *a.Server
		name := a.Name
		if name == "" {
			name = srv.Name
		}
		stored := s.settings.Get().MCPServers
		if i := slices.IndexFunc(stored, func(m config.MCPServer) bool { return m.Name == name }); i >= 0 {
			srv = config.UnmaskMCPServer(srv, stored[i])
		}
		if config.HasMasked(srv) {
			return mcp.TestReport{}, invalidf("a value of %s is still masked (%s…); type the secret again", srv.Name, config.MaskPrefix)
		}
	default:
		i := slices.IndexFunc(s.settings.Get().MCPServers, func(m config.MCPServer) bool { return m.Name == a.Name })
		if i < 0 {
			return mcp.TestReport{}, notFoundf("no MCP server named %q", a.Name)
		}
		srv = s.settings.Get().MCPServers[i]
	}
	srv.Disabled = false
	if err := mcp.ValidateServer(srv); err != nil {
		return mcp.TestReport{}, invalidf("%v", err)
	}
	rep, err := mcp.TestServer(ctx, srv, mcp.Options{Environ: s.childEnviron, Children: s.children})
	if err != nil && rep.State.Status == "" {
		return rep, invalidf("%v", err)
	}
	return rep, nil
}

// ListMCPPrompts returns the MCP prompts usable as slash commands.
func (s *Service) ListMCPPrompts(context.Context, struct{}) ([]mcp.PromptCommand, error) {
	p := s.userMCP.Prompts()
	if p == nil {
		p = []mcp.PromptCommand{}
	}
	return p, nil
}
