package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the "hooks" section of a settings file, in Claude Code's shape:
// each event name maps to matcher groups, run in the order written.
type Config map[Event][]Group

// Group is one matcher with the hooks it runs.
type Group struct {
	// Matcher selects what the group runs for (see Matcher); "" and "*"
	// match everything.
	Matcher string `json:"matcher,omitempty"`
	// Hooks are run when the matcher matches.
	Hooks []Command `json:"hooks"`
}

// Command is one hook. TinyElf runs hooks of type "command"; the others
// Claude Code knows ("prompt", "http", "agent", "mcp_tool") are kept in the
// file but not run, and reported as such.
type Command struct {
	Type    string `json:"type"`
	Command string `json:"command,omitempty"`
	// Timeout is in seconds (0: DefaultTimeout).
	Timeout Seconds `json:"timeout,omitzero"`
}

// Seconds is a timeout in seconds as Claude Code writes it: a JSON number
// (a numeric string is accepted too, since people write "30").
type Seconds float64

// UnmarshalJSON accepts a number or a string holding one.
func (s *Seconds) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		*s = Seconds(f)
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return fmt.Errorf("timeout must be a number of seconds, not %s", b)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(str), 64)
	if err != nil {
		return fmt.Errorf("timeout must be a number of seconds, not %q", str)
	}
	*s = Seconds(f)
	return nil
}

// Duration is the timeout as a duration, DefaultTimeout when unset or not
// positive, MaxTimeout at most.
func (s Seconds) Duration() time.Duration {
	if s <= 0 || math.IsNaN(float64(s)) {
		return DefaultTimeout
	}
	if float64(s) >= MaxTimeout.Seconds() {
		return MaxTimeout
	}
	return time.Duration(float64(s) * float64(time.Second))
}

// DefaultTimeout is a hook's timeout when it sets none, as in Claude Code.
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds any hook's timeout: a hook can delay the loop, never
// hold it for good.
const MaxTimeout = time.Hour

// TypeCommand is the hook type TinyElf runs.
const TypeCommand = "command"

// Problem is something in a hooks section that TinyElf cannot use: it is
// shown to the user and the rest of the section still works.
type Problem struct {
	// Where says which hook: "PreToolUse[0].hooks[1]", or the event name.
	Where   string `json:"where"`
	Message string `json:"message"`
}

// String writes the problem as "where: message".
func (p Problem) String() string { return p.Where + ": " + p.Message }

// Parse reads a hooks section (the value of "hooks", possibly empty or
// null). It never fails as a whole: an event it does not know, a group or
// a hook that does not decode, a type it does not run or a matcher that is
// not a valid pattern is reported as a Problem, and what does decode is
// returned (events it does not know are dropped; hooks it cannot run are
// kept, so that saving the settings loses nothing the user wrote).
func Parse(raw json.RawMessage) (Config, []Problem) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Config{}, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return Config{}, []Problem{{Where: "hooks", Message: "must be an object mapping event names to matcher groups: " + err.Error()}}
	}
	out := Config{}
	var problems []Problem
	names := make([]string, 0, len(events))
	for name := range events {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ev := Event(name)
		if !ev.Known() {
			msg := "not an event TinyElf runs hooks for; ignored"
			if e, err := ParseEvent(name); err == nil {
				msg = fmt.Sprintf("event names are case-sensitive: write %q; ignored", e)
			}
			problems = append(problems, Problem{Where: name, Message: msg})
			continue
		}
		var groups []json.RawMessage
		if err := json.Unmarshal(events[name], &groups); err != nil {
			problems = append(problems, Problem{Where: name, Message: "must be a list of matcher groups ({\"matcher\": ..., \"hooks\": [...]}); ignored"})
			continue
		}
		for i, g := range groups {
			where := fmt.Sprintf("%s[%d]", name, i)
			var grp Group
			if err := json.Unmarshal(g, &grp); err != nil {
				problems = append(problems, Problem{Where: where, Message: "does not decode (" + decodeMessage(err) + "); ignored"})
				continue
			}
			problems = append(problems, groupProblems(ev, where, grp)...)
			out[ev] = append(out[ev], grp)
		}
	}
	return out, problems
}

// decodeMessage shortens a json error for a Problem.
func decodeMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%s must be a %s, not %s", te.Field, jsonType(te.Type.Kind().String()), te.Value)
	}
	return err.Error()
}

func jsonType(kind string) string {
	switch kind {
	case "slice":
		return "list"
	case "struct", "map":
		return "object"
	}
	return kind
}

// groupProblems checks one group.
func groupProblems(ev Event, where string, g Group) []Problem {
	var out []Problem
	if _, err := CompileMatcher(g.Matcher); err != nil {
		out = append(out, Problem{Where: where + ".matcher", Message: err.Error() + "; the group never runs"})
	}
	if len(g.Hooks) == 0 {
		out = append(out, Problem{Where: where + ".hooks", Message: "no hooks in this group"})
	}
	for j, c := range g.Hooks {
		w := fmt.Sprintf("%s.hooks[%d]", where, j)
		switch {
		case c.Type != TypeCommand && c.Type != "":
			out = append(out, Problem{Where: w, Message: fmt.Sprintf("hooks of type %q are not supported by TinyElf (only \"command\"); not run", c.Type)})
		case c.Type == "":
			out = append(out, Problem{Where: w, Message: "has no type; write \"type\": \"command\"; not run"})
		case strings.TrimSpace(c.Command) == "":
			out = append(out, Problem{Where: w, Message: "has no command; not run"})
		}
		if c.Timeout < 0 {
			out = append(out, Problem{Where: w, Message: fmt.Sprintf("timeout %v is negative; the default of %s applies", float64(c.Timeout), DefaultTimeout)})
		}
	}
	_ = ev
	return out
}

// Runnable reports whether TinyElf runs the hook.
func (c Command) Runnable() bool {
	return c.Type == TypeCommand && strings.TrimSpace(c.Command) != ""
}

// Validate checks a hooks section the user is saving (Settings → Hooks)
// strictly: every problem Parse would report is an error here, so that
// nothing saved from the form is silently ignored later.
func Validate(c Config) error {
	var msgs []string
	events := make([]string, 0, len(c))
	for ev := range c {
		events = append(events, string(ev))
	}
	slices.Sort(events)
	for _, name := range events {
		ev := Event(name)
		if !ev.Known() {
			msgs = append(msgs, fmt.Sprintf("%s: not an event TinyElf runs hooks for", name))
			continue
		}
		for i, g := range c[ev] {
			for _, p := range groupProblems(ev, fmt.Sprintf("%s[%d]", name, i), g) {
				msgs = append(msgs, p.String())
			}
		}
	}
	if len(msgs) > 0 {
		return errors.New("the hooks cannot be saved: " + strings.Join(msgs, "; "))
	}
	return nil
}

// Marshal writes a hooks section with the events in lifecycle order,
// without empty events, as the settings file keeps it.
func (c Config) Marshal() (json.RawMessage, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for _, ev := range Events {
		groups := c[ev]
		if len(groups) == 0 {
			continue
		}
		b, err := json.Marshal(groups)
		if err != nil {
			return nil, fmt.Errorf("encode %s hooks: %w", ev, err)
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		name, _ := json.Marshal(string(ev))
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(b)
		n++
	}
	buf.WriteByte('}')
	if n == 0 {
		return nil, nil
	}
	return buf.Bytes(), nil
}
