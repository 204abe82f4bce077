package engine

import (
	"fmt"
	"slices"
	"time"
	"tinyelf/backend/capabilities"
	"tinyelf/backend/proc"
	"tinyelf/backend/shell"
	"tinyelf/backend/tools/agent"
	"tinyelf/backend/tools/fs"
	"tinyelf/backend/web"

	"tinyelf/backend/tools"
)

// BuildOptions configures the tool registry of one session.
type BuildOptions struct {
	// Workspace is the folder the agent works in.
	Workspace string
	// Unrestricted turns off restrictToWorkspace (on by default): the
	// FileSystem tools may then reach outside the workspace.
	Unrestricted bool
	// Mode is the permission mode; plan keeps only read-only tools.
	Mode Mode
	// ExecTimeout is the Bash tool's default timeout (execTimeout); 0 means
	// the tool's default of two minutes.
	ExecTimeout time.Duration
	// AllowedTools, when not empty, keeps only these tools (an agent's
	// allowedTools setting).
	AllowedTools []string
	// Notifier backs the Notify tool; without one Notify is absent.
	Notifier agent.Notifier
	// Web configures WebSearch and WebFetch; without it both are absent.
	Web *WebTools
	// Middleware wraps every call after validation (the permission gate).
	Middleware []tools.Middleware
	// Environ returns the environment Bash commands start from (see
	// ChildEnviron); nil leaves out at least config.SecretEnvNames.
	Environ func() []string
	// Children starts Bash commands and Grep's ripgrep and keeps them from
	// outliving TinyElf; may be nil.
	Children *proc.Children
	// Reads, when set, makes Write and Edit refuse files the agent has not
	// read in this session, or that changed since (the engine passes the
	// session's tracker). Nil checks nothing: a single `tinyelf tool` call
	// is the user's own.
	Reads *fs.ReadTracker
	// CallTimeout bounds one tool call (tools.DefaultCallTimeout when 0).
	CallTimeout time.Duration
	// Roots are folders outside the workspace the FileSystem tools may
	// reach too (see fs.Root).
	Roots []fs.Root
	// Skills adds the skills tools (steps 5, 6 and 9); nil leaves them out.
	Skills *SkillTools
	// Spawner backs spawn_agent, subagent_list and subagent_status (steps
	// 7 and 8); without one they are absent.
	Spawner agent.Spawner
	// Sessions backs SessionsSpawn, SessionsList, SessionsSend and
	// SessionsHistory (step 11); without it they are absent.
	Sessions agent.SessionStore
	// Schemas, when set, shares compiled parameter schemas between the
	// sessions' registries.
	Schemas *tools.SchemaCache
}

// Session is a built tool registry and the workspace it works in. Close it
// when the session ends.
type Session struct {
	Registry  *tools.Registry
	Workspace *fs.Workspace
	// Hidden says, for each built-in tool the filters removed, why: a call
	// to it gets that explanation instead of "unknown tool".
	Hidden map[string]string
}

// Close releases the workspace.
func (s *Session) Close() error { return s.Workspace.Close() }

// BuildRegistry assembles a session's tools in the order of the seed's
// TinyElfToolRegistryBuilder. Steps whose features have not landed yet are
// absent:
//
//  1. FileSystem: Read, Write, Edit, ListDir, Glob, Grep
//  2. Shell: Bash
//  3. Web Search: WebSearch (native search, then the WebSearchService)
//  4. Web Fetch: WebFetch with its summarizer
//  5. Skills: list_skills, read_skill
//  6. SkillHub: skillhub_search, skillhub_install
//  7. Sub-Agent: spawn_agent
//  8. Sub-Agent Query: subagent_list, subagent_status
//  9. Slash Command: slash_command
//  11. Session: SessionsSpawn, SessionsList, SessionsSend, SessionsHistory
//  12. Control: Notify, SessionsYield
//     and, from seed 003, ToolSearch (the way to the capabilities the
//     discovery policy defers).
//
// The permission mode and AllowedTools then filter the result.
func BuildRegistry(opts BuildOptions) (*Session, error) {
	ws, err := fs.OpenWorkspace(opts.Workspace, !opts.Unrestricted, opts.Roots...)
	if err != nil {
		return nil, err
	}
	ws.TrackReads(opts.Reads)
	if opts.Environ == nil {
		opts.Environ = defaultChildEnviron
	}
	reg := tools.NewRegistry(tools.WithMiddleware(opts.Middleware...), tools.WithCallTimeout(opts.CallTimeout), tools.WithSchemaCache(opts.Schemas))
	steps := []struct {
		name  string
		tools func() []tools.Tool
	}{
		{"filesystem", func() []tools.Tool {
			return []tools.Tool{
				fs.NewRead(ws), fs.NewWrite(ws), fs.NewEdit(ws), fs.NewListDir(ws),
				fs.NewGlob(ws), fs.NewGrep(ws, fs.GrepOptions{Children: opts.Children}),
			}
		}},
		{"shell", func() []tools.Tool {
			return []tools.Tool{shell.NewBash(ws, shell.BashOptions{Timeout: opts.ExecTimeout, Environ: opts.Environ, Children: opts.Children})}
		}},
		{"web search", func() []tools.Tool {
			if opts.Web == nil {
				return nil
			}
			return []tools.Tool{web.NewSearch(opts.Web.Search)}
		}},
		{"web fetch", func() []tools.Tool {
			if opts.Web == nil {
				return nil
			}
			return []tools.Tool{web.NewFetch(web.FetchOptions{Net: opts.Web.Net, Summarizer: opts.Web.Summarizer, Cache: opts.Web.Cache})}
		}},
		{"skills", func() []tools.Tool { return opts.Skills.step(5) }},
		{"skillhub", func() []tools.Tool { return opts.Skills.step(6) }},
		{"sub-agent", func() []tools.Tool {
			if opts.Spawner == nil {
				return nil
			}
			return []tools.Tool{agent.NewSpawnAgent(opts.Spawner)}
		}},
		{"sub-agent query", func() []tools.Tool {
			if opts.Spawner == nil {
				return nil
			}
			return []tools.Tool{agent.NewSubagentList(opts.Spawner), agent.NewSubagentStatus(opts.Spawner)}
		}},
		{"slash command", func() []tools.Tool { return opts.Skills.step(9) }},
		{"session", func() []tools.Tool {
			if opts.Sessions == nil {
				return nil
			}
			return []tools.Tool{
				agent.NewSessionsSpawn(opts.Sessions), agent.NewSessionsList(opts.Sessions),
				agent.NewSessionsSend(opts.Sessions), agent.NewSessionsHistory(opts.Sessions),
			}
		}},
		{"control", func() []tools.Tool {
			ts := []tools.Tool{agent.NewSessionsYield()}
			if opts.Notifier != nil {
				ts = append([]tools.Tool{agent.NewNotify(opts.Notifier)}, ts...)
			}
			return ts
		}},
		// Seed 003: how the model asks for capabilities it is not shown.
		{"discovery", func() []tools.Tool { return []tools.Tool{capabilities.NewToolSearch()} }},
	}
	for _, step := range steps {
		if err := reg.RegisterAll(step.tools()...); err != nil {
			ws.Close()
			return nil, fmt.Errorf("build tool registry, step %s: %w", step.name, err)
		}
	}
	hidden := map[string]string{}
	if len(opts.AllowedTools) > 0 {
		for _, n := range reg.Names() {
			if !slices.Contains(opts.AllowedTools, n) {
				hidden[n] = "this agent's profile does not allow it (allowedTools)"
			}
		}
		reg = reg.Filtered(opts.AllowedTools)
	}
	if opts.Mode == ModePlan {
		for _, in := range reg.Infos() {
			if !in.ReadOnly {
				hidden[in.Name] = "plan mode allows only read-only tools; describe the change in your plan instead, or ask the user to switch modes"
			}
		}
		reg = reg.FilteredFunc(func(i tools.Info) bool { return i.ReadOnly })
	}
	return &Session{Registry: reg, Workspace: ws, Hidden: hidden}, nil
}
