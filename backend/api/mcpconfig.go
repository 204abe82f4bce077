package api

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp"
	"tinyelf/backend/secretstore"
)

// MCPConfig is the user's MCP server list in the settings file, for the
// commands that manage it (tinyelf mcp) without starting the rest of the
// service: nothing runs until Check or Test is asked for. It is safe for
// concurrent use, also beside a running window (the settings file is
// locked for each change).
type MCPConfig struct {
	settings *config.Store
	version  string
	tokens   mcp.TokenStores
}

// OpenMCPConfig reads the settings file of the data folder (default:
// DataDir()). A file that does not parse is set aside and Warnings says
// where.
func OpenMCPConfig(dataDir, version string) (*MCPConfig, error) {
	if dataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		dataDir = dir
	}
	settings, err := config.OpenStore(filepath.Join(dataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	return &MCPConfig{settings: settings, version: version,
		tokens: mcp.SecretTokens(secretstore.Open(dataDir, secretstore.Options{NoKeyring: os.Getenv(EnvNoKeyring) == "1"}))}, nil
}

// Warnings returns the problems met while reading the settings (a corrupt
// file set aside, naming the copy), one sentence each.
func (c *MCPConfig) Warnings() []string {
	if w := c.settings.Warning(); w != "" {
		return []string{w}
	}
	return nil
}

// Servers returns the configured servers, in order.
func (c *MCPConfig) Servers() []MCPServer {
	stored := c.settings.Get().MCPServers
	if stored == nil {
		return nil
	}
	out := make([]MCPServer, len(stored))
	for i, s := range stored {
		out[i] = mcpServerOf(s)
	}
	return out
}

// Server returns the named server's configuration.
func (c *MCPConfig) Server(name string) (MCPServer, bool) {
	s, ok := c.server(name)
	if !ok {
		return MCPServer{}, false
	}
	return mcpServerOf(s), true
}

// server returns the named server's stored configuration.
func (c *MCPConfig) server(name string) (config.MCPServer, bool) {
	servers := c.settings.Get().MCPServers
	i := slices.IndexFunc(servers, func(s config.MCPServer) bool { return s.Name == name })
	if i < 0 {
		return config.MCPServer{}, false
	}
	return servers[i], true
}

// Add validates a server and appends it; a name already in use is an error.
func (c *MCPConfig) Add(s MCPServer) error { return mcp.AddServer(c.settings, s.config()) }

// Remove deletes the named server and its sign-in.
func (c *MCPConfig) Remove(name string) error {
	if err := mcp.RemoveServer(c.settings, name); err != nil {
		return err
	}
	return mcp.ForgetSignIn(c.tokens, name)
}

// ImportFile adds the servers of a claude_desktop_config.json or .mcp.json
// file and reports what was imported and what was skipped and why.
func (c *MCPConfig) ImportFile(path string) (mcp.ImportReport, error) {
	return mcp.ImportFile(c.settings, path, os.LookupEnv)
}

// Check starts every configured server in parallel, waits until each has
// connected, failed or is disabled (bounded by each one's start timeout, or
// until ctx ends), stops them all and returns their states in
// configuration order.
func (c *MCPConfig) Check(ctx context.Context) []MCPServerState {
	svc := mcp.NewService(c.settings.Get().MCPServers, mcp.Options{ClientVersion: c.version, TokenStores: c.tokens})
	svc.Start(ctx)
	defer svc.Close()
	_ = svc.WaitReady(ctx)
	return mcpStatesOf(svc.States())
}

// Test starts the named server alone (even when disabled), lists what it
// offers and stops it. The error says why it did not connect; the report is
// filled either way.
func (c *MCPConfig) Test(ctx context.Context, name string) (mcp.TestReport, error) {
	s, ok := c.server(name)
	if !ok {
		return mcp.TestReport{}, fmt.Errorf("no MCP server named %q (see 'tinyelf mcp list')", name)
	}
	return mcp.TestServer(ctx, s, mcp.Options{ClientVersion: c.version, TokenStores: c.tokens})
}

// Login signs in to the named http or sse server: show receives the URL
// to open in a browser, and Login returns once the browser came back to
// TinyElf (or ctx ends), with the server's sign-in as its card shows it.
func (c *MCPConfig) Login(ctx context.Context, name string, show func(authURL string)) (*mcp.AuthState, error) {
	s, ok := c.server(name)
	if !ok {
		return nil, fmt.Errorf("no MCP server named %q (see 'tinyelf mcp list')", name)
	}
	s.Disabled = false
	svc := mcp.NewService([]config.MCPServer{s}, mcp.Options{ClientVersion: c.version, TokenStores: c.tokens})
	defer svc.Close()
	if err := svc.SignIn(ctx, name, func(_ context.Context, u string) error { show(u); return nil }); err != nil {
		return nil, err
	}
	st, _ := svc.State(name)
	return st.Auth, nil
}

// Logout forgets the named server's sign-in.
func (c *MCPConfig) Logout(name string) error {
	if _, ok := c.server(name); !ok {
		return fmt.Errorf("no MCP server named %q (see 'tinyelf mcp list')", name)
	}
	return mcp.ForgetSignIn(c.tokens, name)
}
