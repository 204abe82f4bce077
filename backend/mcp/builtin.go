package mcp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/tools"
)

// BuiltinSet is the builtin providers an agent is eligible for, each
// running as an in-process mcp-go server behind an in-process client, and
// offered as tools.Tool values (mcp__tinyelf-<provider>__<tool>, Source
// tools.SourceMCP). It is safe for concurrent use; Close ends the clients.
type BuiltinSet struct {
	conns []*conn
	cats  []catalog // as listed at connect, per conn
	tools []tools.Tool
}

// fixedConn is the connSource of a builtin tool: its in-process connection
// never restarts.
type fixedConn struct {
	c    *conn
	name string
}

func (f fixedConn) connection() (*conn, ServerState) {
	if f.c.alive() {
		return f.c, ServerState{Name: f.name, Status: StatusConnected}
	}
	return nil, ServerState{Name: f.name, Status: StatusDisconnected, Detail: "the session's builtin tools were closed"}
}

// Connect starts an in-process server and client for every provider the
// Caller in ctx is eligible for and returns their tools. A provider that
// fails to start fails the whole set (builtin providers are TinyElf's own
// code, so a failure is a bug to surface, not a state to show).
func (r *ProviderRegistry) Connect(ctx context.Context) (*BuiltinSet, error) {
	d := &dialer{self: mcp.Implementation{Name: "tinyelf", Version: ClientVersion()}}
	set := &BuiltinSet{}
	var keys []nameKey
	var owners []struct {
		src  fixedConn
		tool mcp.Tool
	}
	for _, p := range r.Eligible(ctx) {
		ts, err := p.Tools(ctx)
		if err != nil {
			set.Close()
			return nil, fmt.Errorf("builtin MCP provider %s: %w", p.Name(), err)
		}
		name := BuiltinPrefix + p.Name()
		hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, cat, err := d.dialInProcess(hctx, name, NewServer(name, "", p.Description(), ts))
		cancel()
		if err != nil {
			set.Close()
			return nil, err
		}
		set.conns = append(set.conns, c)
		set.cats = append(set.cats, cat)
		for _, t := range cat.tools {
			keys = append(keys, nameKey{name, t.Name})
			owners = append(owners, struct {
				src  fixedConn
				tool mcp.Tool
			}{fixedConn{c, name}, t})
		}
	}
	names := assignNames(keys)
	for i, o := range owners {
		set.tools = append(set.tools, newRemoteTool(names[i], o.src, o.src.name, o.tool, DefaultCallTimeout))
	}
	return set, nil
}

// Tools returns the set's tools, in provider then tool order.
func (b *BuiltinSet) Tools() []tools.Tool { return slices.Clone(b.tools) }

// Close ends every in-process client; the tools then answer that they are
// closed. It is safe to call more than once.
func (b *BuiltinSet) Close() error {
	for _, c := range b.conns {
		c.close()
	}
	return nil
}
