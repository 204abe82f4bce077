package engine

import (
	"context"
	"strings"

	"tinyelf/backend/sessions"
)

// ErrorToolSkipped is the kind of the error event that lists the tools a
// ToolProblemSource left out.
const ErrorToolSkipped = sessions.ErrorKindToolSkipped

// reportSourceProblems logs what the ToolProblemSources left out, once for
// each change of it: a session's first model call reports what is wrong
// already, a later one what a refresh changed. Problems that went away
// are not reported; the next report, if any, lists the current ones. A
// reopened session compares with the last report in its log.
func (t *turn) reportSourceProblems(ctx context.Context) error {
	var lines []string
	for _, src := range t.e.opts.ToolSources {
		if ps, ok := src.(ToolProblemSource); ok {
			lines = append(lines, ps.ToolProblems(ctx, t.info)...)
		}
	}
	msg := strings.Join(lines, "\n")
	t.s.mu.Lock()
	same := msg == t.s.discovery.problems
	t.s.discovery.problems = msg
	t.s.mu.Unlock()
	if same || msg == "" {
		return nil
	}
	return t.record(ctx, sessions.NewEvent(sessions.EventError, sessions.Error{Message: msg, Kind: ErrorToolSkipped}))
}
