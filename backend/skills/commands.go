package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// CommandKind says what a slash command runs.
type CommandKind string

// The kinds of slash commands.
const (
	// CommandMarkdown is a Markdown command file (commands/*.md).
	CommandMarkdown CommandKind = "markdown"
	// CommandSkill is a user-invocable skill, /<skill name>.
	CommandSkill CommandKind = "skill"
	// CommandPrompt is an MCP prompt, run through a PromptSource.
	CommandPrompt CommandKind = "mcp"
)

// SourceMCP is the Source of commands that are MCP prompts (no skill has it).
const SourceMCP Source = "mcp"

// maxCommandFiles bounds the Markdown files read from one commands folder.
const maxCommandFiles = 1000

// Command is one slash command, as the composer's "/" menu lists it.
type Command struct {
	// Name is the command without its "/": the file's name without .md (a
	// file in a subfolder is "sub:name"), the skill's name, or the MCP
	// prompt's mcp__<server>__<prompt>.
	Name         string       `json:"name"`
	Description  string       `json:"description,omitempty"`
	ArgumentHint string       `json:"argumentHint,omitempty"`
	AllowedTools AllowedTools `json:"allowedTools,omitempty"`
	Model        string       `json:"model,omitempty"`
	Kind         CommandKind  `json:"kind"`
	Source       Source       `json:"source"`
	// Path is the Markdown file or the skill's SKILL.md ("" for prompts).
	Path string `json:"path,omitempty"`
	// Arguments names the arguments (a skill's arguments field, an MCP
	// prompt's arguments).
	Arguments []PromptArgument `json:"arguments,omitempty"`
	// Warnings are the problems lenient loading forgave.
	Warnings []string `json:"warnings,omitempty"`

	skill *Skill
}

// PromptArgument is one named argument of a command.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Prompt is an MCP prompt offered as a command (mcp.PromptCommand, adapted
// by the engine).
type Prompt struct {
	Name        string           `json:"name"` // mcp__<server>__<prompt>
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptSource is where MCP prompts come from; the engine satisfies it with
// the MCP service. RunPrompt returns the text to use as the user's message,
// or an error whose text can be shown as is.
type PromptSource interface {
	Prompts() []Prompt
	RunPrompt(ctx context.Context, name string, args map[string]string) (string, error)
}

// CommandRoots returns the Markdown command folders in precedence order:
// user (DataDir/commands, ~/.claude/commands), project (.tinyelf/commands,
// .claude/commands).
func (o Options) CommandRoots() []Root {
	var roots []Root
	seen := map[string]bool{}
	add := func(src Source, dir string) {
		if abs, err := filepath.Abs(dir); err == nil && !seen[abs] {
			seen[abs] = true
			roots = append(roots, Root{Source: src, Dir: abs})
		}
	}
	if o.DataDir != "" {
		add(SourceUser, filepath.Join(o.DataDir, "commands"))
	}
	if o.Home != "" {
		add(SourceUser, filepath.Join(o.Home, ".claude", "commands"))
	}
	if o.Workspace != "" {
		add(SourceProject, filepath.Join(o.Workspace, ".tinyelf", "commands"))
		add(SourceProject, filepath.Join(o.Workspace, ".claude", "commands"))
	}
	return roots
}

// Commands returns every slash command: the user-invocable skills first
// (a skill wins over a Markdown command of the same name, as in Claude
// Code), then the Markdown commands (user over project), then the MCP
// prompts of prompts (may be nil). Markdown files are read now, so edits
// show at once; a file that does not parse is listed in invalid.
func (l *Library) Commands(prompts PromptSource) (cmds []*Command, invalid []Invalid) {
	seen := map[string]bool{}
	for _, sk := range l.Snapshot().Skills {
		if !sk.UserInvocable {
			continue
		}
		c := &Command{Name: sk.Name, Description: sk.Description, ArgumentHint: sk.ArgumentHint,
			AllowedTools: sk.AllowedTools, Model: sk.Model, Kind: CommandSkill, Source: sk.Source,
			Path: sk.Location(), skill: sk}
		for _, a := range sk.Arguments {
			c.Arguments = append(c.Arguments, PromptArgument{Name: a})
		}
		seen[c.Name] = true
		cmds = append(cmds, c)
	}
	for _, r := range l.opts.CommandRoots() {
		found, bad := scanCommands(r)
		invalid = append(invalid, bad...)
		for _, c := range found {
			if !seen[c.Name] {
				seen[c.Name] = true
				cmds = append(cmds, c)
			}
		}
	}
	if prompts != nil {
		for _, p := range prompts.Prompts() {
			if !seen[p.Name] {
				seen[p.Name] = true
				cmds = append(cmds, &Command{Name: p.Name, Description: p.Description, Kind: CommandPrompt, Source: SourceMCP, Arguments: p.Arguments})
			}
		}
	}
	sort.SliceStable(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	return cmds, invalid
}

// scanCommands reads the *.md files of one commands folder and its
// subfolders (a/b.md is the command "a:b").
func scanCommands(r Root) ([]*Command, []Invalid) {
	var out []*Command
	var invalid []Invalid
	count := 0
	_ = filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != r.Dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if count++; count > maxCommandFiles {
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(r.Dir, p)
		name := strings.ReplaceAll(filepath.ToSlash(strings.TrimSuffix(rel, ".md")), "/", ":")
		c, prob := loadCommand(p, name, r.Source)
		if prob != nil {
			prob.File = p
			invalid = append(invalid, Invalid{Name: name, Source: r.Source, Dir: filepath.Dir(p), Problem: *prob})
			return nil
		}
		out = append(out, c)
		return nil
	})
	return out, invalid
}

// loadCommand reads a Markdown command. The frontmatter is optional; its
// fields are description, argument-hint, allowed-tools and model. Without
// a description the body's first line describes the command.
func loadCommand(file, name string, src Source) (*Command, *Problem) {
	data, prob := readCommandFile(file)
	if prob != nil {
		return nil, prob
	}
	c := &Command{Name: name, Kind: CommandMarkdown, Source: src, Path: file}
	body, fm, prob := splitCommand(data)
	if prob != nil {
		return nil, prob
	}
	if fm != nil {
		for _, f := range fm.fields {
			switch f.key {
			case "description":
				c.Description, _ = scalarText(f.val)
			case "argument-hint":
				c.ArgumentHint, _ = hintText(f.val)
			case "model":
				c.Model, _ = scalarText(f.val)
			case "allowed-tools":
				text, ok := allowedToolsText(f.val)
				if !ok {
					c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: allowed-tools should be a list of tools; ignored", f.line))
					continue
				}
				var errs []error
				c.AllowedTools, errs = ParseAllowedTools(text)
				for _, e := range errs {
					c.Warnings = append(c.Warnings, fmt.Sprintf("line %d: allowed-tools: %v", f.line, e))
				}
			}
		}
	}
	c.Description = strings.TrimSpace(c.Description)
	if c.Description == "" {
		first, _, _ := strings.Cut(body, "\n")
		c.Description = capRunes(strings.TrimSpace(strings.TrimLeft(first, "# ")), 120)
	}
	return c, nil
}

func readCommandFile(file string) ([]byte, *Problem) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, &Problem{Rule: "unreadable", Message: err.Error()}
	}
	if st.Size() > maxSkillFileBytes {
		return nil, &Problem{Rule: "too-large", Message: fmt.Sprintf("the command file is %s, over the %s limit", humanBytes(st.Size()), humanBytes(maxSkillFileBytes))}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, &Problem{Rule: "unreadable", Message: err.Error()}
	}
	return data, nil
}

// splitCommand splits a command file into its body and its optional
// frontmatter (nil when the file has none).
func splitCommand(data []byte) (string, *frontmatter, *Problem) {
	doc, prob := splitDocument(data)
	if prob != nil {
		if prob.Rule != "frontmatter-missing" {
			return "", nil, prob
		}
		// No frontmatter: the whole file is the body, once it is UTF-8.
		text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\uFEFF"), "\r\n", "\n")
		return strings.TrimSpace(text), nil, nil
	}
	fm, prob := parseFrontmatter(doc, lenientYAML)
	if prob != nil {
		return "", nil, prob
	}
	return doc.body, fm, nil
}

// Errors of RunCommand, wrapped with the command's name.
var (
	ErrUnknownCommand = errors.New("unknown slash command")
	ErrNeedsTrust     = errors.New("the project skill is not trusted")
	ErrDenied         = errors.New("the user denied this project skill")
)

// Rendered is a command made ready to run: the text to send as the user's
// message (or as the slash_command tool's result), and what the command
// asks of the turn.
type Rendered struct {
	Command *Command `json:"command"`
	Text    string   `json:"text"`
	// AllowedTools pre-approve (skills) or filter (commands) tools for the
	// rest of the turn; the engine applies them, never beyond deny rules,
	// plan mode or the shell deny list. Empty for an untrusted source.
	AllowedTools AllowedTools `json:"allowedTools,omitempty"`
	// Model overrides the model for the turn ("": keep).
	Model string `json:"model,omitempty"`
	// Fork is set for a skill with context: fork; Agent names the subagent.
	Fork  bool   `json:"fork,omitempty"`
	Agent string `json:"agent,omitempty"`
	// Skill is the skill run, nil for other commands: its loading is a
	// capability.loaded event.
	Skill *Skill `json:"-"`
}

// CommandCall is one invocation of a slash command.
type CommandCall struct {
	// Name is the command, with or without its "/".
	Name string
	// Args is the argument string as typed.
	Args string
	// SessionID fills ${CLAUDE_SESSION_ID}.
	SessionID string
	// ByUser is set when the user typed the command in the composer: that
	// is consent to run a project skill not trusted yet (for this call only,
	// nothing is saved) and to let a project command's allowed-tools count.
	// When the model runs a command (slash_command), ByUser is false.
	ByUser bool
}

// RunCommand renders a command for the composer and for slash_command. A
// skill must be loadable: a project skill the user denied is refused
// (ErrDenied), one not trusted yet too unless ByUser (ErrNeedsTrust). A
// Markdown command from the project is rendered, but its allowed-tools
// count only when the user typed it or project skills are trusted as a
// whole (TrustProject): a cloned repository cannot pre-approve tools for the
// model by itself. An MCP prompt is rendered by prompts (may be nil).
func (l *Library) RunCommand(ctx context.Context, call CommandCall, prompts PromptSource) (Rendered, error) {
	name, args, sessionID := call.Name, call.Args, call.SessionID
	name = strings.TrimPrefix(strings.TrimSpace(name), "/")
	cmds, _ := l.Commands(prompts)
	var c *Command
	for _, x := range cmds {
		if x.Name == name {
			c = x
			break
		}
	}
	if c == nil {
		return Rendered{}, fmt.Errorf("/%s: %w", name, ErrUnknownCommand)
	}
	out := Rendered{Command: c, Model: c.Model}
	switch c.Kind {
	case CommandSkill:
		sk := c.skill
		switch l.Trust(sk) {
		case TrustUntrusted:
			if call.ByUser {
				break
			}
			return Rendered{}, fmt.Errorf("/%s: %w: %s", name, ErrNeedsTrust, l.HowToTrust(name))
		case TrustDenied:
			return Rendered{}, fmt.Errorf("/%s: %w", name, ErrDenied)
		}
		body, err := sk.Body()
		if err != nil {
			return Rendered{}, err
		}
		t := Template{Body: body, Positional: ZeroBased, Names: sk.Arguments, SessionID: sessionID}
		if !sk.Embedded() {
			t.SkillDir = sk.Dir
		}
		if out.Text, err = t.Render(args); err != nil {
			return Rendered{}, fmt.Errorf("/%s: %w", name, err)
		}
		out.AllowedTools, out.Skill = sk.AllowedTools, sk
		out.Fork, out.Agent = sk.Context == ContextFork, sk.Agent
	case CommandMarkdown:
		data, prob := readCommandFile(c.Path)
		if prob != nil {
			return Rendered{}, fmt.Errorf("/%s: %s", name, prob.Message)
		}
		body, _, prob := splitCommand(data)
		if prob != nil {
			return Rendered{}, fmt.Errorf("/%s: %s", name, prob.Message)
		}
		var err error
		if out.Text, err = (Template{Body: body, Positional: OneBased, SessionID: sessionID}).Render(args); err != nil {
			return Rendered{}, fmt.Errorf("/%s: %w", name, err)
		}
		if c.Source != SourceProject || l.opts.TrustProject || call.ByUser {
			out.AllowedTools = c.AllowedTools
		}
	case CommandPrompt:
		if prompts == nil {
			return Rendered{}, fmt.Errorf("/%s: %w (MCP prompts are not available here)", name, ErrUnknownCommand)
		}
		words, err := SplitArgs(args)
		if err != nil {
			return Rendered{}, fmt.Errorf("/%s: %w", name, err)
		}
		text, err := prompts.RunPrompt(ctx, name, promptArgs(c.Arguments, words))
		if err != nil {
			return Rendered{}, err
		}
		out.Text = text
	}
	return out, nil
}

// promptArgs maps words onto named arguments: name=value for a declared
// name, the others positionally onto the names not given yet.
func promptArgs(decl []PromptArgument, words []string) map[string]string {
	out := map[string]string{}
	var rest []string
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if ok && hasArg(decl, k) {
			out[k] = v
			continue
		}
		rest = append(rest, w)
	}
	for _, a := range decl {
		if len(rest) == 0 {
			break
		}
		if _, given := out[a.Name]; !given {
			out[a.Name], rest = rest[0], rest[1:]
		}
	}
	if len(rest) > 0 && len(decl) > 0 {
		last := decl[len(decl)-1].Name
		out[last] = strings.Join(append([]string{out[last]}, rest...), " ")
	}
	return out
}

func hasArg(decl []PromptArgument, name string) bool {
	for _, a := range decl {
		if a.Name == name {
			return true
		}
	}
	return false
}
