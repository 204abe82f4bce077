// Package hooks runs the user's own checks at the tool pipeline's hook
// points, in Claude Code's format, so that hook scripts written for Claude
// Code run unchanged in TinyElf.
//
// A settings file's "hooks" section maps an event name to matcher groups,
// each with command hooks:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//	    {"type": "command", "command": "./check.sh", "timeout": 60}]}]}}
//
// Parse reads such a section (leniently: what it cannot use is a Problem,
// never a failure that loses the rest), NewSet compiles the sections that
// apply to one workspace, Set.Match finds the hooks an event runs, a
// Runner runs them (in parallel, identical commands once, each under its
// timeout, in a process group of its own that dies with TinyElf) and
// Combine turns their exit codes and JSON output into one Outcome the
// engine applies with Claude Code's precedence: a deny always wins, ask
// comes next, allow last.
//
// The package knows nothing of sessions or the engine: the engine builds
// the Input of each event, runs the hooks and logs each Run.
package hooks
