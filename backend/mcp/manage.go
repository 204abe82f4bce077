package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/config"
)

// validateShape checks what a config needs to be startable at all, before
// any ${VAR} is expanded.
func validateShape(s config.MCPServer) error {
	switch normalizeType(s.Type, s) {
	case TypeStdio:
		if s.Command == "" {
			return errors.New("missing command: a stdio server needs the command that starts it")
		}
	case TypeHTTP, TypeSSE:
		if s.URL == "" {
			return errors.New("missing url: an http or sse server needs its address")
		}
		// Check what can be known now: with defaults filled in, unless a
		// variable without a default makes the address unknowable until
		// the server starts.
		u, missing := expandEnv(s.URL, func(string) (string, bool) { return "", false })
		if len(missing) == 0 && checkURL(u) != nil {
			return fmt.Errorf("invalid url %q: it must be an http:// or https:// address", s.URL)
		}
	default:
		return fmt.Errorf("unknown type %q (want stdio, http, streamable-http or sse)", s.Type)
	}
	return nil
}

// ValidateServer checks a server config as the settings panel and
// `tinyelf mcp add` accept it: a valid name, a known type and what that
// type needs.
func ValidateServer(s config.MCPServer) error {
	if !ValidServerName(s.Name) {
		return fmt.Errorf("invalid server name %q: use 1 to 48 letters, digits, '-' or '_', starting with a letter or digit", s.Name)
	}
	return validateShape(s)
}

// AddServer validates s and appends it to the store's MCP servers; a name
// already in use is an error.
func AddServer(store *config.Store, s config.MCPServer) error {
	if err := ValidateServer(s); err != nil {
		return err
	}
	s.Type = normalizeType(s.Type, s)
	return store.Update(func(st *config.Settings) error {
		if slices.ContainsFunc(st.MCPServers, func(x config.MCPServer) bool { return x.Name == s.Name }) {
			return fmt.Errorf("an MCP server named %q already exists; remove it first or pick another name", s.Name)
		}
		st.MCPServers = append(st.MCPServers, s)
		return nil
	})
}

// RemoveServer removes the named server from the store.
func RemoveServer(store *config.Store, name string) error {
	return store.Update(func(st *config.Settings) error {
		i := slices.IndexFunc(st.MCPServers, func(x config.MCPServer) bool { return x.Name == name })
		if i < 0 {
			return fmt.Errorf("no MCP server named %q", name)
		}
		st.MCPServers = slices.Delete(st.MCPServers, i, i+1)
		return nil
	})
}

// SetServerDisabled switches the named server off (or on again).
func SetServerDisabled(store *config.Store, name string, disabled bool) error {
	return store.Update(func(st *config.Settings) error {
		i := slices.IndexFunc(st.MCPServers, func(x config.MCPServer) bool { return x.Name == name })
		if i < 0 {
			return fmt.Errorf("no MCP server named %q", name)
		}
		st.MCPServers[i].Disabled = disabled
		return nil
	})
}

// TestReport is what TestServer found.
type TestReport struct {
	State     ServerState     `json:"state"`
	Tools     []ToolSummary   `json:"tools"`
	Prompts   []PromptCommand `json:"prompts,omitempty"`
	Resources int             `json:"resources"`
	// Duration is how long the start took.
	Duration time.Duration `json:"duration"`
}

// ToolSummary is one tool as TestServer lists it.
type ToolSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	ReadOnly    bool   `json:"readOnly"`
}

// TestServer starts s once (even when disabled), lists what it offers and
// stops it: the settings panel's and `tinyelf mcp test`'s check. The error
// says why a server did not connect; the report is filled either way.
func TestServer(ctx context.Context, s config.MCPServer, opts Options) (TestReport, error) {
	s.Disabled = false
	start := time.Now()
	svc := NewService([]config.MCPServer{s}, opts)
	svc.Start(ctx)
	defer svc.Close()
	werr := svc.WaitReady(ctx)
	rep := TestReport{Duration: time.Since(start), Tools: []ToolSummary{}}
	rep.State, _ = svc.State(s.Name)
	for _, t := range svc.Tools() {
		info := t.Info()
		if _, ok := t.(*remoteTool); !ok {
			continue // the shared resource tools
		}
		desc := strings.TrimPrefix(info.Description, fmt.Sprintf("[MCP server %s] ", s.Name))
		rep.Tools = append(rep.Tools, ToolSummary{Name: info.Name, Description: desc, ReadOnly: info.ReadOnly})
	}
	rep.Prompts = svc.Prompts()
	rep.Resources = rep.State.Resources
	switch {
	case werr != nil:
		return rep, fmt.Errorf("test %s: %w", s.Name, werr)
	case rep.State.Status != StatusConnected:
		return rep, fmt.Errorf("MCP server %s is %s: %s", s.Name, rep.State.Status, rep.State.Error)
	}
	return rep, nil
}
