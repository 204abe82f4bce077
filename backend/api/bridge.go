package api

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"tinyelf/backend/config"
	"tinyelf/backend/engine"
	"tinyelf/backend/mcp"
	"tinyelf/backend/notify"
	"tinyelf/backend/proc"
	"tinyelf/backend/sessions"
)

// BridgeOptions configures StartBridge; empty fields take the defaults.
type BridgeOptions struct {
	// DataDir holds the session history the bridge offers (default:
	// DataDir()).
	DataDir string
	// Addr is the loopback address to listen on (default 127.0.0.1:0).
	Addr string
	// Workspace is the folder the workspace tools read (required).
	Workspace string
	// Token is the bearer token clients must send (default: a random one).
	Token string
	// Notifier shows the notify tool's notifications (default: the
	// platform's).
	Notifier notify.Notifier
	// Version is what the bridge tells clients in serverInfo (default:
	// this build's version).
	Version string
}

// Bridge serves TinyElf's builtin MCP providers (the session history,
// notifications, the workspace) to CLI agents outside TinyElf, on loopback
// with a bearer token (tinyelf mcp bridge). Close it to stop serving.
type Bridge struct {
	b        *mcp.Bridge
	children *proc.Children
	store    *sessions.Store
	warnings []string
}

// StartBridge starts serving and returns once it listens. A session
// history that cannot be opened leaves the sessions tools out, with a
// warning (Warnings), rather than failing.
func StartBridge(ctx context.Context, o BridgeOptions) (*Bridge, error) {
	if o.DataDir == "" {
		dir, err := config.DataDir()
		if err != nil {
			return nil, err
		}
		o.DataDir = dir
	}
	if o.Notifier == nil {
		o.Notifier = notify.New()
	}
	settings, err := config.OpenStore(filepath.Join(o.DataDir, config.SettingsFile))
	if err != nil {
		return nil, err
	}
	// No records: the bridge is a process of its own, and its ripgrep
	// children die with it.
	br := &Bridge{children: engine.NewChildren("", settings, os.Getenv)}
	reg := mcp.NewProviderRegistry(mcp.NewWorkspaceProvider(o.Workspace, br.children))
	if store, err := sessions.Open(ctx, filepath.Join(o.DataDir, SessionsFile)); err == nil {
		br.store = store
		_ = reg.Register(mcp.NewSessionsProvider(engine.SessionReader(store)))
	} else {
		br.warnings = append(br.warnings, fmt.Sprintf("the session history is not available to bridge clients: %v", err))
	}
	_ = reg.Register(mcp.NewNotifyProvider(bridgeNotifier{o.Notifier}))
	b, err := mcp.StartBridge(ctx, reg, mcp.BridgeOptions{Addr: o.Addr, Token: o.Token, Caller: mcp.Caller{Workspace: o.Workspace}, Version: o.Version})
	if err != nil {
		if br.store != nil {
			br.store.Close()
		}
		return nil, err
	}
	br.b = b
	return br, nil
}

// bridgeNotifier adapts a notify.Notifier to the notify provider.
type bridgeNotifier struct{ n notify.Notifier }

func (d bridgeNotifier) Notify(ctx context.Context, title, body string) error {
	return d.n.Notify(ctx, notify.Notification{Title: title, Body: body, Kind: notify.KindDone})
}

// Warnings returns what the bridge had to leave out, one sentence each.
func (b *Bridge) Warnings() []string { return b.warnings }

// URL returns the endpoint, e.g. http://127.0.0.1:41234/mcp.
func (b *Bridge) URL() string { return b.b.URL() }

// Token returns the bearer token.
func (b *Bridge) Token() string { return b.b.Token() }

// Tools returns the names of the tools the bridge serves.
func (b *Bridge) Tools() []string { return b.b.Tools() }

// ClientConfig returns a ready-to-paste client configuration (.mcp.json,
// Claude Code) naming the bridge name.
func (b *Bridge) ClientConfig(name string) []byte { return b.b.ClientConfig(name) }

// Done delivers, once, the error that stopped the bridge (nil after Close).
func (b *Bridge) Done() <-chan error { return b.b.Done() }

// Close stops serving (waiting within ctx for calls in flight) and closes
// the session history.
func (b *Bridge) Close(ctx context.Context) error {
	err := b.b.Close(ctx)
	b.children.KillAll()
	if b.store != nil {
		b.store.Close()
	}
	return err
}
