package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"tinyelf/backend/tools"
)

// Refusal is an error whose message the model can act on: a request it may
// change (an unknown agent, a looser permission mode than its own, a session
// that is busy). The Spawner and SessionStore return it for such requests;
// the tools pass its text back as an error result, while any other error is
// reported as something broken underneath.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Refusef returns a Refusal with a formatted reason.
func Refusef(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

// refusalOr turns err into the tool's result: a Refusal's reason as an
// error result the model reads, anything else as a Go error.
func refusalOr(err error) (tools.Result, error) {
	var r *Refusal
	if errors.As(err, &r) {
		return tools.Errorf("%s", r.Reason), nil
	}
	return tools.Result{}, err
}

// SpawnRequest is one spawn_agent call, as the model made it.
type SpawnRequest struct {
	Prompt string
	// Agent names the profile the child runs ("": the default agent).
	Agent string
	// Model overrides the profile's model: "model" on the child's
	// provider, or "provider/model".
	Model      string
	Background bool
	// MaxIterations overrides the profile's maxIterations (0: keep it).
	MaxIterations int
	// PermissionMode asks for a mode no looser than the parent's ("":
	// the profile's, or the parent's when that is looser).
	PermissionMode string
	// Tools names tools of the parent's, beyond the inherited ones, that
	// the child may use.
	Tools []string
}

// The states of a subagent run.
const (
	RunRunning       = "running"
	RunWaiting       = "waiting_approval"
	RunDone          = "done"
	RunMaxIterations = "max_iterations"
	RunFailed        = "error"
	RunCancelled     = "cancelled"
)

// SubagentRun is what is known of one subagent: the child session it runs
// in, where it stands, and, once it ended, its answer.
type SubagentRun struct {
	RunID      string `json:"runId"`
	SessionID  string `json:"sessionId"`
	ParentID   string `json:"parentId"`
	CallID     string `json:"callId,omitempty"`
	Agent      string `json:"agent"`
	Provider   string `json:"provider,omitempty"`
	Model      string `json:"model,omitempty"`
	Mode       string `json:"mode"`
	Background bool   `json:"background"`
	Prompt     string `json:"prompt"`
	// Inherited are the tools the child was given; NotGiven the ones
	// spawn_agent's tools named that the parent does not have, with why.
	Inherited []string `json:"inherited"`
	NotGiven  []string `json:"notGiven,omitempty"`
	// Notes say what was decided for the child that the call did not ask
	// for (a profile's looser mode brought down to the parent's).
	Notes []string `json:"notes,omitempty"`
	// State is one of the Run* constants.
	State string `json:"state"`
	// Iterations counts the child's model calls so far; Progress says what
	// it does now (the tool it runs, or that it waits for an approval).
	Iterations int    `json:"iterations"`
	Progress   string `json:"progress,omitempty"`
	// Text is the child's final answer (or what it had when it stopped);
	// Error why it stopped, when it did not finish.
	Text    string        `json:"text,omitempty"`
	Error   string        `json:"error,omitempty"`
	Usage   SubagentUsage `json:"usage"`
	Started time.Time     `json:"started"`
	Ended   time.Time     `json:"ended,omitzero"`
	// Visible are the tools the child was shown at its last model call;
	// Diffs counts its capability.diff events (its own log holds them).
	Visible []string `json:"visible,omitempty"`
	Diffs   int      `json:"capabilityDiffs,omitempty"`
}

// SubagentUsage is what a subagent's model calls took.
type SubagentUsage struct {
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
	CostUSD      float64 `json:"costUsd,omitempty"`
}

// Over reports whether the run has ended.
func (r SubagentRun) Over() bool {
	switch r.State {
	case RunRunning, RunWaiting, "":
		return false
	}
	return true
}

// Spawner starts and reports on subagents; the engine's SubagentManager
// implements it. Every method acts for the session whose tool call ctx
// carries. A request the model can change is refused with a Refusal.
type Spawner interface {
	// Spawn starts a child session. In the foreground it returns when the
	// child's turn has ended (or ctx ends, which stops the child); in the
	// background it returns at once, with the run in RunRunning.
	Spawn(ctx context.Context, req SpawnRequest) (SubagentRun, error)
	// Runs lists the calling session's subagents, newest first.
	Runs(ctx context.Context) ([]SubagentRun, error)
	// Run reports one of the calling session's subagents by run ID.
	Run(ctx context.Context, runID string) (SubagentRun, error)
}

// SubagentMetaKey holds a spawn_agent or subagent_status result's run in
// Meta, for the UI's tool card (which links to the child session).
const SubagentMetaKey = "subagent"

// SubagentCallTimeout bounds a foreground spawn_agent call: the child's own
// limits (maxIterations, each tool's deadline) end it long before.
const SubagentCallTimeout = 4 * time.Hour

// runLine is a one-line account of a run.
func runLine(r SubagentRun) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  agent %s", r.RunID, r.State, r.Agent)
	if r.Background {
		b.WriteString(" (background)")
	}
	fmt.Fprintf(&b, ", %d model calls", r.Iterations)
	if r.Progress != "" && !r.Over() {
		fmt.Fprintf(&b, ", now: %s", r.Progress)
	}
	fmt.Fprintf(&b, " — %s", tools.CutUTF8(oneLine(r.Prompt), 80))
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// runReport is a run's full account: state, answer or error, usage.
func runReport(r SubagentRun, answerBytes int) string {
	var b strings.Builder
	switch r.State {
	case RunDone:
		b.WriteString(strings.TrimSpace(tools.CutUTF8(r.Text, answerBytes)))
		if len(r.Text) > answerBytes {
			b.WriteString("\n[... the answer was cut; the child session holds all of it ...]")
		}
		if strings.TrimSpace(r.Text) == "" {
			b.WriteString("(The subagent finished without a final answer.)")
		}
		b.WriteString("\n\n---\n")
		fmt.Fprintf(&b, "Subagent run %s, agent %s, finished after %d model calls", r.RunID, r.Agent, r.Iterations)
	case RunMaxIterations:
		fmt.Fprintf(&b, "The subagent stopped after %d model calls (its maxIterations) before it finished.", r.Iterations)
		if t := strings.TrimSpace(r.Text); t != "" {
			fmt.Fprintf(&b, " What it had so far:\n\n%s", tools.CutUTF8(t, answerBytes))
		}
		b.WriteString("\n\n---\n")
		fmt.Fprintf(&b, "Subagent run %s, agent %s", r.RunID, r.Agent)
	case RunFailed:
		fmt.Fprintf(&b, "The subagent failed: %s", r.Error)
		if t := strings.TrimSpace(r.Text); t != "" {
			fmt.Fprintf(&b, "\nIts last text:\n\n%s", tools.CutUTF8(t, answerBytes))
		}
		b.WriteString("\n\n---\n")
		fmt.Fprintf(&b, "Subagent run %s, agent %s, after %d model calls", r.RunID, r.Agent, r.Iterations)
	case RunCancelled:
		fmt.Fprintf(&b, "The subagent was stopped before it finished (after %d model calls).", r.Iterations)
		b.WriteString("\n\n---\n")
		fmt.Fprintf(&b, "Subagent run %s, agent %s", r.RunID, r.Agent)
	default:
		fmt.Fprintf(&b, "The subagent is %s (%d model calls so far)", strings.ReplaceAll(r.State, "_", " "), r.Iterations)
		if r.Progress != "" {
			fmt.Fprintf(&b, "; now: %s", r.Progress)
		}
		b.WriteString(".\n\n---\n")
		fmt.Fprintf(&b, "Subagent run %s, agent %s", r.RunID, r.Agent)
	}
	fmt.Fprintf(&b, "; mode %s; tokens in %d, out %d", r.Mode, r.Usage.InputTokens, r.Usage.OutputTokens)
	if r.Usage.CostUSD > 0 {
		fmt.Fprintf(&b, ", $%.4f", r.Usage.CostUSD)
	}
	b.WriteString(".")
	if len(r.NotGiven) > 0 {
		fmt.Fprintf(&b, "\nNot given to it: %s.", strings.Join(r.NotGiven, "; "))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\nNote: %s.", n)
	}
	return b.String()
}

// runMeta is a run as the UI's tool card reads it.
func runMeta(r SubagentRun) map[string]any {
	return map[string]any{SubagentMetaKey: r}
}
