package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// PromptCommand is an MCP prompt offered as the slash command "/" + Name
// (the seed maps MCP prompts to commands, not tools).
type PromptCommand struct {
	// Name is mcp__<server>__<prompt>, unique like tool names.
	Name        string           `json:"name"`
	Server      string           `json:"server"`
	Prompt      string           `json:"prompt"` // the prompt's name on the server
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a PromptCommand.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

type promptOwner struct {
	r      *runner
	prompt mcp.Prompt
}

func buildPromptCommands(keys []nameKey, owners []promptOwner) []PromptCommand {
	names := assignNames(keys)
	out := make([]PromptCommand, len(owners))
	for i, o := range owners {
		pc := PromptCommand{Name: names[i], Server: o.r.cfg.Name, Prompt: o.prompt.Name,
			Title: o.prompt.Title, Description: o.prompt.Description}
		for _, a := range o.prompt.Arguments {
			pc.Arguments = append(pc.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out[i] = pc
	}
	return out
}

// Prompts returns the prompt commands of every connected server, in
// configuration order.
func (s *Service) Prompts() []PromptCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.prompts)
}

// ErrUnknownPrompt is returned (wrapped) by RunPrompt for a name that is
// no current prompt command.
var ErrUnknownPrompt = errors.New("unknown prompt command")

// RunPrompt renders the prompt command name (with or without its leading
// "/") with args and returns the text to send as the user's message,
// marked as the server's words (see markUntrusted). A
// missing required argument, an unknown argument, or a server that is not
// connected is an error whose text can be shown to the user as is.
func (s *Service) RunPrompt(ctx context.Context, name string, args map[string]string) (string, error) {
	name = strings.TrimPrefix(name, "/")
	s.mu.Lock()
	i := slices.IndexFunc(s.prompts, func(p PromptCommand) bool { return p.Name == name })
	var pc PromptCommand
	if i >= 0 {
		pc = s.prompts[i]
	}
	s.mu.Unlock()
	if i < 0 {
		return "", fmt.Errorf("/%s: %w", name, ErrUnknownPrompt)
	}
	if err := checkPromptArgs(pc, args); err != nil {
		return "", err
	}
	r := s.runnerNamed(pc.Server)
	if r == nil {
		return "", fmt.Errorf("/%s: MCP server %q is gone", name, pc.Server)
	}
	c, st := r.connection()
	if c == nil {
		return "", fmt.Errorf("/%s: MCP server %q is %s", name, pc.Server, st.Status)
	}
	res, err := c.getPrompt(ctx, pc.Prompt, args, s.opts.CallTimeout)
	if err != nil {
		return "", err
	}
	return untrustedText(pc.Server, contentPrompt, pc.Prompt, promptText(res)), nil
}

// RunPromptLine parses a typed line (see ParsePromptLine) and runs it;
// positional values fill the command's arguments in order, skipping those
// given by name.
func (s *Service) RunPromptLine(ctx context.Context, line string) (string, error) {
	inv, err := ParsePromptLine(line)
	if err != nil {
		return "", err
	}
	args := inv.Args
	if len(inv.Positional) > 0 {
		s.mu.Lock()
		i := slices.IndexFunc(s.prompts, func(p PromptCommand) bool { return p.Name == inv.Name })
		var pc PromptCommand
		if i >= 0 {
			pc = s.prompts[i]
		}
		s.mu.Unlock()
		if i < 0 {
			return "", fmt.Errorf("/%s: %w", inv.Name, ErrUnknownPrompt)
		}
		pos := inv.Positional
		for _, a := range pc.Arguments {
			if _, given := args[a.Name]; given || len(pos) == 0 {
				continue
			}
			args[a.Name] = pos[0]
			pos = pos[1:]
		}
		if len(pos) > 0 {
			return "", fmt.Errorf("/%s takes %d argument(s); %d value(s) were left over: %q", pc.Name, len(pc.Arguments), len(pos), pos)
		}
	}
	return s.RunPrompt(ctx, inv.Name, args)
}

func checkPromptArgs(pc PromptCommand, args map[string]string) error {
	for k := range args {
		if !slices.ContainsFunc(pc.Arguments, func(a PromptArgument) bool { return a.Name == k }) {
			return fmt.Errorf("/%s has no argument %q (it takes: %s)", pc.Name, k, argList(pc))
		}
	}
	for _, a := range pc.Arguments {
		if a.Required && args[a.Name] == "" {
			msg := fmt.Sprintf("/%s needs the argument %s", pc.Name, a.Name)
			if a.Description != "" {
				msg += " (" + a.Description + ")"
			}
			return fmt.Errorf("%s; write it as %s=VALUE", msg, a.Name)
		}
	}
	return nil
}

func argList(pc PromptCommand) string {
	if len(pc.Arguments) == 0 {
		return "no arguments"
	}
	var names []string
	for _, a := range pc.Arguments {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// promptText flattens a rendered prompt into one user message: each
// message's text in order, non-user roles marked, resources inline, images
// described.
func promptText(res *mcp.GetPromptResult) string {
	var parts []string
	for _, m := range res.Messages {
		var text string
		switch c := deref(m.Content).(type) {
		case mcp.TextContent:
			text = c.Text
		case mcp.ImageContent:
			text = fmt.Sprintf("[image: %s, %s]", orUnknown(c.MIMEType), byteSize(decodedSize(c.Data)))
		case mcp.AudioContent:
			text = fmt.Sprintf("[audio: %s, %s]", orUnknown(c.MIMEType), byteSize(decodedSize(c.Data)))
		case mcp.EmbeddedResource:
			text, _ = describeResource(c.Resource)
		case mcp.ResourceLink:
			text = describeLink(c)
		}
		if m.Role != mcp.RoleUser && m.Role != "" {
			text = "[" + string(m.Role) + "] " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n")
}

// PromptInvocation is a parsed slash-command line.
type PromptInvocation struct {
	Name       string            // without the leading "/"
	Args       map[string]string // key=value pairs
	Positional []string          // values without a key, in order
}

// ParsePromptLine parses a line the user typed, such as
//
//	/mcp__everything__args-prompt city=Paris state="Île de France" extra
//
// Words are separated by blanks; double or single quotes keep blanks inside
// a value (or a whole key="value" word), and a backslash escapes the next
// character inside double quotes or outside quotes. A word with '=' is
// key=value; any other word is a positional value.
func ParsePromptLine(line string) (PromptInvocation, error) {
	words, err := splitWords(strings.TrimSpace(line))
	if err != nil {
		return PromptInvocation{}, err
	}
	if len(words) == 0 || !strings.HasPrefix(words[0].text, "/") || len(words[0].text) < 2 {
		return PromptInvocation{}, errors.New("a prompt command starts with / and its name")
	}
	inv := PromptInvocation{Name: words[0].text[1:], Args: map[string]string{}}
	for _, w := range words[1:] {
		if k, v, ok := strings.Cut(w.text, "="); ok && w.keyEnd > 0 && k != "" {
			if _, dup := inv.Args[k]; dup {
				return PromptInvocation{}, fmt.Errorf("argument %q is given twice", k)
			}
			inv.Args[k] = v
			continue
		}
		inv.Positional = append(inv.Positional, w.text)
	}
	return inv, nil
}

// word is one parsed word; keyEnd > 0 when an unquoted '=' appeared in it
// (so `"a=b"` stays a positional value).
type word struct {
	text   string
	keyEnd int
}

func splitWords(s string) ([]word, error) {
	var words []word
	var cur strings.Builder
	inWord, keyEnd := false, 0
	var quote rune
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		c := runes[i]
		switch {
		case quote != 0:
			switch {
			case c == quote:
				quote = 0
			case c == '\\' && quote == '"' && i+1 < len(runes):
				i++
				cur.WriteRune(runes[i])
			default:
				cur.WriteRune(c)
			}
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(runes):
			i++
			cur.WriteRune(runes[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word{cur.String(), keyEnd})
				cur.Reset()
				inWord, keyEnd = false, 0
			}
		default:
			if c == '=' && keyEnd == 0 {
				keyEnd = cur.Len() + 1
			}
			cur.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inWord {
		words = append(words, word{cur.String(), keyEnd})
	}
	return words, nil
}
