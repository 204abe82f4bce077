package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"tinyelf/backend/api"
)

// sessionToolCall is a `tinyelf tool` call of a tool only a session has.
type sessionToolCall struct {
	name, agent, workspace, output string
	mode                           api.Mode
	args                           json.RawMessage
}

// runSessionTool runs a tool only a session has (spawn_agent, subagent_*,
// Sessions*, Notify) in a one-off session of the agent: the call is the
// turn, without a model call (api.RunToolCall). The session stays in the
// history, so what ran can be looked at later. A call that starts another
// session's turn (SessionsSpawn, SessionsSend) waits for that turn to end:
// it would be cut off when this command exits.
func runSessionTool(ctx context.Context, c sessionToolCall, stdout, stderr io.Writer, o Options) int {
	stderr = &lockedWriter{w: stderr}
	svc, err := api.New(ctx, api.Options{
		// Calls the subagents and sessions it starts make ask as in
		// `tinyelf run` without --yes: denied unless a rule or the mode
		// allows them (use --mode acceptEdits or auto).
		Approver:           cliApprover(false, stderr),
		Background:         true,
		NoSkillTrustPrompt: true,
		Getenv:             os.Getenv,
		Version:            o.Version,
	})
	if err != nil {
		return fail(stderr, "tool", err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
		defer cancel()
		_ = svc.Shutdown(sctx)
	}()
	warn(stderr, svc.Warnings())
	id, err := svc.StartSession(ctx, api.StartSessionArgs{Workspace: c.workspace, Mode: c.mode, Agent: c.agent})
	if err != nil {
		return usageError(stderr, "tool", err.Error())
	}
	if c.name == "spawn_agent" || c.name == "SessionsSpawn" || c.name == "SessionsSend" {
		// An agent the call starts should see the MCP servers' tools.
		reportMCP(stderr, svc.WaitMCPServers(ctx), "; the agents it starts run without its tools")
	}
	res, err := svc.RunToolCall(ctx, id, fmt.Sprintf("tinyelf tool %s --args %s", c.name, c.args), c.name, c.args)
	if err != nil {
		return fail(stderr, "tool", err)
	}
	if !res.IsError && (c.name == "SessionsSpawn" || c.name == "SessionsSend") {
		fmt.Fprintln(stderr, "Waiting for the session it started to finish its turn (Ctrl+C stops it)…")
		if err := svc.WaitIdle(ctx); err != nil {
			fmt.Fprintln(stderr, "tinyelf tool: stopped before the session finished its turn")
		}
	}
	fmt.Fprintf(stderr, "(%s ran in the one-off session %s: tinyelf sessions show %s)\n", c.name, id, id)
	return printResult(res, c.output, stdout, stderr)
}
