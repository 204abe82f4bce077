package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/mcp/oauth"
	"tinyelf/backend/tools"
)

// conn is one live connection to one MCP server: an initialized mcp-go
// client, plus (for stdio) the child process behind it. It notices when the
// server goes away (done closes, lostErr says why) and when its lists
// change (changed fires). A conn is safe for concurrent use; close ends it.
type conn struct {
	server string // the configured name, for messages
	kind   string // TypeStdio, TypeHTTP, TypeSSE or kindInProcess

	client *client.Client
	proc   *process        // stdio only
	tap    *stdoutTap      // stdio only
	life   context.Context // ends when the connection closes
	cancel context.CancelFunc

	protocol string
	info     mcp.Implementation
	caps     mcp.ServerCapabilities

	done     chan struct{}
	doneOnce sync.Once
	lostErr  error // set before done closes

	changed chan struct{} // capacity 1: a */list_changed arrived
	acked   chan struct{} // closed when subscriptions/listen is acknowledged
	ackOnce sync.Once

	progress  sync.Map // token string -> tools.ProgressFunc
	nextToken atomic.Int64
	inFlight  calls // the tool calls running, for the server's requests

	// authNeeded hears of a request that failed for want of a sign-in.
	authNeeded func(error)
	// onHandshake hears of the negotiated revision once the handshake is
	// over (it opens the HTTP stack's gate).
	onHandshake func(version string)
	probing     atomic.Bool

	stopListen func()
	closeOnce  sync.Once
	stopGrace  time.Duration
}

// kindInProcess marks the connections to TinyElf's builtin providers.
const kindInProcess = "in-process"

func newConn(server, kind string, cl *client.Client, life context.Context, cancel context.CancelFunc) *conn {
	c := &conn{
		server: server, kind: kind, client: cl, life: life, cancel: cancel,
		done: make(chan struct{}), changed: make(chan struct{}, 1), acked: make(chan struct{}),
		stopGrace: 500 * time.Millisecond,
	}
	cl.OnNotification(c.onNotification)
	return c
}

// handshake runs initialize (or server/discover on 2026-07-28) within ctx
// and records what the server said about itself.
func (c *conn) handshake(ctx context.Context, self mcp.Implementation) error {
	var req mcp.InitializeRequest
	req.Params.ClientInfo = self
	res, err := c.client.Initialize(ctx, req)
	if err != nil {
		return err
	}
	c.protocol = c.client.ProtocolVersion()
	if c.protocol == "" {
		c.protocol = res.ProtocolVersion
	}
	c.info = res.ServerInfo
	c.caps = res.Capabilities
	if c.onHandshake != nil {
		c.onHandshake(c.protocol)
	}
	return nil
}

// listen opens the 2026-07-28 subscriptions/listen stream for the list
// changes the server announces, and waits (within ctx) for the server to
// acknowledge it, so that no change between the listing and the stream is
// missed; on earlier revisions the notifications arrive without asking.
func (c *conn) listen(ctx, life context.Context) {
	if !mcp.IsModernProtocol(c.protocol) {
		return
	}
	var f mcp.SubscriptionFilter
	f.ToolsListChanged = c.caps.Tools != nil && c.caps.Tools.ListChanged
	f.PromptsListChanged = c.caps.Prompts != nil && c.caps.Prompts.ListChanged
	f.ResourcesListChanged = c.caps.Resources != nil && c.caps.Resources.ListChanged
	if f.IsEmpty() {
		return
	}
	// A stream that breaks is a hint that the server went away: check.
	stop, err := c.client.ListenAsync(life, f, c.noteError)
	if err != nil {
		return
	}
	c.stopListen = stop
	t := time.NewTimer(listenAckWait)
	defer t.Stop()
	select {
	case <-c.acked:
	case <-c.done:
	case <-ctx.Done():
	case <-t.C: // a server that never acknowledges still works, minus changes
	}
}

// listenAckWait bounds the wait for subscriptions/acknowledged.
const listenAckWait = 2 * time.Second

func (c *conn) onNotification(n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
		p := n.Params.AdditionalFields
		token := fmt.Sprint(p["progressToken"])
		if fn, ok := c.progress.Load(token); ok {
			fn.(tools.ProgressFunc)(progressLine(p))
		}
	case mcp.MethodNotificationSubscriptionsAcknowledged:
		c.ackOnce.Do(func() { close(c.acked) })
	case string(mcp.MethodNotificationToolsListChanged),
		string(mcp.MethodNotificationPromptsListChanged),
		string(mcp.MethodNotificationResourcesListChanged):
		// The refresh needs a request over this same connection; the
		// transport's reader is calling us, so only signal here.
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
}

// progressLine renders a notifications/progress: "step 2 of 5 (2/5)".
func progressLine(p map[string]any) string {
	msg, _ := p["message"].(string)
	num := func(v any) string {
		if f, ok := v.(float64); ok {
			return fmt.Sprintf("%g", f)
		}
		return fmt.Sprint(v)
	}
	frac := num(p["progress"])
	if t, ok := p["total"]; ok && t != nil {
		frac += "/" + num(t)
	}
	if msg == "" {
		return "progress " + frac
	}
	return msg + " (" + frac + ")"
}

// lose marks the connection as gone, once; the first reason wins.
func (c *conn) lose(err error) {
	c.doneOnce.Do(func() {
		c.lostErr = err
		close(c.done)
	})
}

// alive reports whether the connection still stands.
func (c *conn) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

// watch turns the child's exit into lose, for stdio connections.
func (c *conn) watch() {
	if c.proc == nil {
		return
	}
	go func() {
		select {
		case <-c.proc.done:
			c.lose(fmt.Errorf("the server %s", c.proc.exitError()))
		case <-c.done:
		}
	}()
}

// noteError looks at a failed request: a closed transport means the
// server is gone; an HTTP transport error is checked with a probe, since one
// failed request (a proxy hiccup) does not prove the server is down.
func (c *conn) noteError(err error) {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return
	}
	if errors.Is(err, oauth.ErrSignInRequired) {
		if c.authNeeded != nil {
			c.authNeeded(err)
		}
		return
	}
	if errors.Is(err, transport.ErrTransportClosed) {
		if c.proc != nil {
			c.proc.waitFor(500 * time.Millisecond) // let the exit status arrive
			if c.proc.exited() {
				c.lose(fmt.Errorf("the server %s", c.proc.exitError()))
				return
			}
		}
		c.lose(fmt.Errorf("the connection closed: %w", err))
		return
	}
	var te *transport.Error
	if !errors.As(err, &te) || c.kind == TypeStdio || c.kind == kindInProcess {
		return
	}
	if !c.probing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.probing.Store(false)
		ctx, cancel := context.WithTimeout(c.life, 10*time.Second)
		defer cancel()
		if _, perr := c.client.ListTools(ctx, mcp.ListToolsRequest{}); perr != nil && c.life.Err() == nil {
			c.lose(fmt.Errorf("the server stopped answering: %w", perr))
		}
	}()
}

// close ends the connection: the subscription stream, the client (an HTTP
// session is deleted), the child process and its group.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.lose(errors.New("closed by TinyElf"))
		if c.stopListen != nil {
			c.stopListen()
		}
		_ = c.client.Close()
		if c.proc != nil {
			c.proc.stop(c.stopGrace)
		}
		if c.cancel != nil {
			c.cancel()
		}
	})
}

// catalog is what a server offers, as listed.
type catalog struct {
	tools     []mcp.Tool
	prompts   []mcp.Prompt
	resources []mcp.Resource
	templates []mcp.ResourceTemplate
	// warnings note lists that failed while the tools were fine.
	warnings []string
}

// fetch lists the server's tools, prompts and resources (those its
// capabilities announce). Failing to list tools fails; the other lists only
// add a warning, since a server that cannot list prompts is still useful.
func (c *conn) fetch(ctx context.Context) (catalog, error) {
	var cat catalog
	if c.caps.Tools != nil {
		res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			c.noteError(err)
			return cat, fmt.Errorf("list tools: %w", err)
		}
		cat.tools = res.Tools
	}
	if c.caps.Prompts != nil {
		if res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{}); err != nil {
			c.noteError(err)
			cat.warnings = append(cat.warnings, fmt.Sprintf("list prompts: %v", err))
		} else {
			cat.prompts = res.Prompts
		}
	}
	if c.caps.Resources != nil {
		if res, err := c.client.ListResources(ctx, mcp.ListResourcesRequest{}); err != nil {
			c.noteError(err)
			cat.warnings = append(cat.warnings, fmt.Sprintf("list resources: %v", err))
		} else {
			cat.resources = res.Resources
		}
		if res, err := c.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{}); err == nil {
			cat.templates = res.ResourceTemplates
		}
	}
	return cat, nil
}
