package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/tools"
)

// DefaultCallTimeout bounds one tool call when Options.CallTimeout is 0.
const DefaultCallTimeout = 5 * time.Minute

// callTool runs one tools/call and maps the outcome for the model.
//
// Progress notifications for the call go to tools.ReportProgress(ctx). When
// ctx ends, mcp-go sends notifications/cancelled to the server and the
// cancellation comes back as a Go error (the registry reports it as a
// cancelled call). Everything else (a timeout, a server that died during
// the call, a protocol error, the tool's own isError) is an error Result the
// model can read.
func (c *conn) callTool(ctx context.Context, tool string, args map[string]any, timeout time.Duration) (tools.Result, error) {
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The server may ask the user something (elicitation, sampling)
	// while the call runs: its requests find the call through cctx.
	cctx = withCallRef(cctx)
	defer c.inFlight.add(cctx)()

	token := "tinyelf-" + strconv.FormatInt(c.nextToken.Add(1), 10)
	c.progress.Store(token, tools.ProgressFunc(func(msg string) { tools.ReportProgress(ctx, msg) }))
	defer c.progress.Delete(token)

	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	res, err := c.client.CallTool(cctx, req)
	if err != nil {
		return c.failure(ctx, cctx, err, fmt.Sprintf("%s on MCP server %q", tool, c.server), timeout)
	}
	out := toolResult(c.server, tool, res)
	if res != nil {
		out = markUntrusted(out, c.server, contentToolResult, tool)
	}
	return out, nil
}

// failure maps a failed request to the result the model reads, or to the
// Go error of a cancelled call.
func (c *conn) failure(ctx, cctx context.Context, err error, what string, timeout time.Duration) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Result{}, fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return tools.Errorf("%s did not answer within %s; the call was cancelled. Try a smaller request, or tell the user the server is slow.", what, timeout), nil
	}
	c.noteError(err)
	if !c.alive() {
		return tools.Errorf("MCP server %q stopped during the call (%v). TinyElf restarts it; try again in a moment, or continue without it.", c.server, c.lostErr), nil
	}
	return tools.Errorf("%s failed: %v", what, err), nil
}

// readResource reads one resource and renders its contents: text inline,
// blobs described (their data kept in Meta).
func (c *conn) readResource(ctx context.Context, uri string, timeout time.Duration) (tools.Result, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var req mcp.ReadResourceRequest
	req.Params.URI = uri
	res, err := c.client.ReadResource(cctx, req)
	if err != nil {
		return c.failure(ctx, cctx, err, fmt.Sprintf("reading %s from MCP server %q", uri, c.server), timeout)
	}
	out := tools.Result{Meta: map[string]any{MetaServer: c.server, "uri": uri}}
	var b strings.Builder
	var blobs []Media
	for i, rc := range res.Contents {
		t, blob := describeResource(rc)
		if blob != nil {
			blobs = append(blobs, *blob)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t)
	}
	out.Content = b.String()
	if out.Content == "" {
		out.Content = "(the resource is empty)"
	}
	if len(blobs) > 0 {
		out.Meta[MetaBlobs] = blobs
	}
	return out, nil
}

// getPrompt renders a prompt with its arguments.
func (c *conn) getPrompt(ctx context.Context, name string, args map[string]string, timeout time.Duration) (*mcp.GetPromptResult, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var req mcp.GetPromptRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.client.GetPrompt(cctx, req)
	if err != nil {
		c.noteError(err)
		if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, fmt.Errorf("prompt %s on MCP server %q did not answer within %s", name, c.server, timeout)
		}
		return nil, fmt.Errorf("prompt %s on MCP server %q: %w", name, c.server, err)
	}
	return res, nil
}
