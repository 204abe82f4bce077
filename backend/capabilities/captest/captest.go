// Package captest holds a realistic catalog for capability-discovery tests
// and benchmarks: the tool lists of the pinned server-everything and
// server-filesystem (as their tools/list answered), a server shaped like a
// GitHub MCP server (152 tools with realistic names, descriptions and
// schemas, written for TinyElf), and MCP servers that serve them.
package captest

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	tmcp "tinyelf/backend/mcp"
	"tinyelf/backend/tools"
)

var (
	//go:embed github_tools.txt
	githubTools string
	//go:embed github_params.txt
	githubParams string
	//go:embed everything_tools.json
	everythingTools []byte
	//go:embed filesystem_tools.json
	filesystemTools []byte
)

// Servers are the fixture servers' names.
var Servers = []string{"everything", "filesystem", "github"}

// MCPTools returns a fixture server's tools as its tools/list answers.
func MCPTools(name string) ([]mcp.Tool, error) {
	switch name {
	case "everything":
		return decodeTools(everythingTools)
	case "filesystem":
		return decodeTools(filesystemTools)
	case "github":
		return gitHub()
	}
	return nil, fmt.Errorf("captest: no fixture server %q", name)
}

func decodeTools(b []byte) ([]mcp.Tool, error) {
	var ts []mcp.Tool
	if err := json.Unmarshal(b, &ts); err != nil {
		return nil, fmt.Errorf("captest: decode tools: %w", err)
	}
	return ts, nil
}

// gitHub builds the GitHub-shaped tools from the spec files: one line per
// tool (name | description | parameters, "?" marking optional ones) and one
// per parameter (name | JSON type | description).
func gitHub() ([]mcp.Tool, error) {
	params := map[string][2]string{}
	for _, f := range specLines(githubParams) {
		if len(f) != 3 {
			return nil, fmt.Errorf("captest: bad parameter line %q", strings.Join(f, "|"))
		}
		params[f[0]] = [2]string{f[1], f[2]}
	}
	var out []mcp.Tool
	for _, f := range specLines(githubTools) {
		if len(f) != 3 {
			return nil, fmt.Errorf("captest: bad tool line %q", strings.Join(f, "|"))
		}
		props := map[string]any{}
		var required []string
		for _, p := range strings.Fields(f[2]) {
			name, optional := strings.CutSuffix(p, "?")
			def, ok := params[name]
			if !ok {
				return nil, fmt.Errorf("captest: tool %s: unknown parameter %s", f[0], name)
			}
			prop := map[string]any{"type": def[0], "description": def[1]}
			if def[0] == "array" {
				prop["items"] = map[string]any{"type": "string"}
			}
			props[name] = prop
			if !optional {
				required = append(required, name)
			}
		}
		schema := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			schema["required"] = required
		}
		raw, _ := json.Marshal(schema)
		t := mcp.Tool{Name: f[0], Description: f[1], RawInputSchema: raw}
		readOnly := strings.HasPrefix(f[0], "get_") || strings.HasPrefix(f[0], "list_") ||
			strings.HasPrefix(f[0], "search_") || strings.HasPrefix(f[0], "compare_")
		t.Annotations.ReadOnlyHint = &readOnly
		destructive := strings.HasPrefix(f[0], "delete_") || strings.HasPrefix(f[0], "remove_")
		t.Annotations.DestructiveHint = &destructive
		out = append(out, t)
	}
	return out, nil
}

func specLines(text string) [][]string {
	var out [][]string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		out = append(out, f)
	}
	return out
}

// NewServer returns an MCP server offering a fixture server's tools. Each
// call answers "<tool> ok" with its arguments, so a test sees it ran.
func NewServer(name string) (*server.MCPServer, error) {
	ts, err := MCPTools(name)
	if err != nil {
		return nil, err
	}
	s := server.NewMCPServer(name, "1.0.0", server.WithToolCapabilities(true))
	for _, t := range ts {
		s.AddTool(t, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, _ := json.Marshal(req.GetArguments())
			return mcp.NewToolResultText(req.Params.Name + " ok " + string(args)), nil
		})
	}
	return s, nil
}

// Tools returns a fixture server's tools as TinyElf's MCP adapter names and
// describes them (mcp__<server>__<tool>, "[MCP server x]" prefix,
// annotations), without a connection: calls answer like NewServer's.
func Tools(name string) ([]tools.Tool, error) {
	ts, err := MCPTools(name)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Tool, 0, len(ts))
	for _, t := range ts {
		out = append(out, fakeTool{info: toolInfo(name, t), tool: t.Name})
	}
	return out, nil
}

func toolInfo(srv string, t mcp.Tool) tools.Info {
	readOnly := t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	destructive := !readOnly && (t.Annotations.DestructiveHint == nil || *t.Annotations.DestructiveHint)
	schema := t.RawInputSchema
	if len(schema) == 0 {
		schema, _ = json.Marshal(t.InputSchema)
	}
	return tools.Info{
		Name: tmcp.ToolName(srv, t.Name), Description: fmt.Sprintf("[MCP server %s] %s", srv, strings.TrimSpace(t.Description)),
		Parameters: schema, ReadOnly: readOnly, Source: tools.SourceMCP, Origin: srv, Title: t.Title,
		Destructive: destructive, OpenWorld: true,
	}
}

type fakeTool struct {
	info tools.Info
	tool string
}

func (f fakeTool) Info() tools.Info { return f.info }

func (f fakeTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	args, _ := json.Marshal(params)
	return tools.Text(f.tool + " ok " + string(args)), nil
}

// Skills returns n fixture skills as name → description, a realistic
// spread of published skills' subjects.
func Skills(n int) map[string]string {
	base := []struct{ name, desc string }{
		{"test-fix", "Fix failing tests: reproduce the failure, find the cause, make the smallest change, verify with the narrowest test first."},
		{"code-review", "Review a diff for correctness, security and missing tests; report findings first, ordered by severity."},
		{"frontend-component", "Change frontend components within the design system: state, accessibility and visual consistency."},
		{"release-notes", "Write release notes from merged pull requests and commits, grouped by features, fixes and breaking changes."},
		{"pdf-forms", "Fill in and extract PDF forms and text with the bundled scripts."},
		{"docx-editing", "Create and edit Word documents: tracked changes, comments, styles and tables."},
		{"spreadsheet-analysis", "Analyse spreadsheets and CSV files: formulas, pivot tables and charts."},
		{"database-migration", "Write and review database migrations that are safe to run on a live system."},
		{"api-design", "Design HTTP APIs: resources, status codes, pagination, errors and versioning."},
		{"security-audit", "Audit code for injection, secrets in the repository, unsafe deserialisation and weak crypto."},
		{"performance-profiling", "Profile a slow program, find the hot path and confirm a speed-up with a benchmark."},
		{"git-bisect", "Find the commit that introduced a regression with git bisect and a test script."},
		{"dockerfile-review", "Review Dockerfiles for image size, layer caching, pinned versions and running as non-root."},
		{"ci-failure-triage", "Triage a failing CI run: fetch the logs, find the first real error, tell flaky from broken."},
		{"incident-postmortem", "Write a blameless postmortem: timeline, impact, root cause and action items."},
		{"changelog-keeper", "Keep a CHANGELOG.md in the Keep a Changelog format as changes land."},
		{"i18n-strings", "Add and check translated UI strings: keys, plurals and placeholders in every language."},
		{"accessibility-check", "Check a web page or component for WCAG issues: labels, contrast, focus and keyboard use."},
		{"sql-optimization", "Speed up SQL queries with EXPLAIN, indexes and rewritten joins."},
		{"terraform-plan-review", "Review a Terraform plan for destroyed resources, drift and security groups opened too wide."},
		{"commit-message", "Write commit messages: a short imperative subject, a body that says why."},
		{"dependency-upgrade", "Upgrade a dependency safely: read its changelog, run the tests, fix what broke."},
		{"mcp-builder", "Build an MCP server: tools with clear names and schemas, resources, and tests."},
		{"skill-creator", "Create a new Agent Skill: SKILL.md frontmatter, instructions, scripts and references."},
	}
	out := map[string]string{}
	for i := 0; len(out) < n; i++ {
		b := base[i%len(base)]
		name := b.name
		if i >= len(base) {
			name = fmt.Sprintf("%s-%d", b.name, i/len(base))
		}
		out[name] = b.desc
	}
	return out
}

// SkillNames returns Skills(n)'s names sorted.
func SkillNames(n int) []string {
	m := Skills(n)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
