package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tinyelf/backend/api"
)

const skillsUsage = `Usage:
  tinyelf skills list [--workspace DIR] [--output text|json]
  tinyelf skills show NAME [--workspace DIR] [--output text|json]
  tinyelf skills search [QUERY] [--output text|json]
  tinyelf skills install ID
  tinyelf skills remove NAME
  tinyelf skills validate DIR [--output text|json]
  tinyelf skills trust NAME [--workspace DIR] [--deny | --forget]

Skills are task guides (Agent Skills: a folder with a SKILL.md) the agent
loads when a task matches. They come from TinyElf itself (builtin), your
skills folders (<data dir>/skills, ~/.agents/skills, ~/.claude/skills) and
the workspace (.tinyelf/skills, .agents/skills, .claude/skills); a name in
several places: yours wins over the workspace's, the workspace's over the
builtin.

  list      every skill with its source, state and trust; shadowed and
            invalid ones say why (--workspace: the folder whose project
            skills to include, default the current one)
  show      one skill's SKILL.md and its files
  search    the SkillHub indexes in the settings (Settings → Skills)
  install   a SkillHub skill into <data dir>/skills (checked, validated,
            moved into place in one step)
  remove    a skill SkillHub installed (never one you made by hand)
  validate  checks a skill folder strictly, like the reference validator:
            each problem with its file and line; exit status 1 when any
  trust     lets a project skill guide the agent in that workspace (also
            for 'tinyelf run'); --deny refuses it, --forget asks again

Exit status: 0 success, 1 failure (or problems found by validate), 2 usage
error.
`

// runSkills implements `tinyelf skills`.
func runSkills(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || isHelp(args[0]) {
		fmt.Fprint(stdout, skillsUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet("tinyelf skills "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", ".", "")
	output := fs.String("output", "text", "")
	deny := fs.Bool("deny", false, "")
	forget := fs.Bool("forget", false, "")
	// Flags may follow the argument: "trust NAME --workspace DIR".
	var pos []string
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return usageError(stderr, "skills", err.Error())
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *output != "text" && *output != "json" {
		return usageError(stderr, "skills", fmt.Sprintf("unknown output format %q (want text or json)", *output))
	}
	want := map[string]int{"list": 0, "ls": 0, "show": 1, "install": 1, "remove": 1, "rm": 1, "validate": 1, "trust": 1}
	n, known := want[cmd]
	switch {
	case cmd == "search":
		if len(pos) > 1 {
			pos = []string{strings.Join(pos, " ")}
		}
	case !known:
		return usageError(stderr, "skills", fmt.Sprintf("unknown command %q", cmd))
	case len(pos) != n:
		return usageError(stderr, "skills", fmt.Sprintf("%s takes %d argument(s), got %d", cmd, n, len(pos)))
	}
	k, err := api.OpenSkills(api.SkillsOptions{})
	if err != nil {
		return fail(stderr, "skills", err)
	}
	defer k.Close()
	warn(stderr, k.Warnings())
	c := skillsCmd{k: k, stdout: stdout, stderr: stderr, json: *output == "json", workspace: *workspace}
	switch cmd {
	case "list", "ls":
		return c.list(ctx)
	case "show":
		return c.show(ctx, pos[0])
	case "search":
		q := ""
		if len(pos) > 0 {
			q = pos[0]
		}
		return c.search(ctx, q)
	case "install":
		return c.install(ctx, pos[0])
	case "remove", "rm":
		if _, err := k.RemoveSkill(ctx, api.RemoveSkillArgs{Name: pos[0]}); err != nil {
			return fail(stderr, "skills", err)
		}
		fmt.Fprintf(stdout, "Removed skill %s.\n", oneLine(pos[0]))
		return exitOK
	case "validate":
		return c.validate(ctx, pos[0])
	default: // trust
		state := "trusted"
		switch {
		case *deny && *forget:
			return usageError(stderr, "skills", "--deny and --forget do not go together")
		case *deny:
			state = "denied"
		case *forget:
			state = "untrusted"
		}
		return c.trust(ctx, pos[0], state)
	}
}

type skillsCmd struct {
	k              *api.Skills
	stdout, stderr io.Writer
	json           bool
	workspace      string
}

func (c skillsCmd) list(ctx context.Context) int {
	l, err := c.k.ListSkills(ctx, api.SkillsArgs{Workspace: c.workspace})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	if c.json {
		return c.writeJSON(l)
	}
	if len(l.Skills) == 0 {
		fmt.Fprintln(c.stdout, "No skills.")
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tSTATE\tDESCRIPTION")
	var skipped []api.SkillInfo
	for _, s := range l.Skills {
		desc := s.Description
		switch {
		case s.Status == "invalid":
			desc = "not loaded: see below"
			skipped = append(skipped, s)
		case s.Reason != "" && s.Status != "untrusted":
			desc = s.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oneLine(s.Name), oneLine(string(s.Source)), oneLine(string(s.Status)), oneLine(cutRunes(desc, 90)))
	}
	tw.Flush()
	if len(skipped) > 0 {
		// The whole problem, as the parser said it: it names the file and
		// line to fix.
		fmt.Fprintln(c.stdout, "\nSkipped, not loaded:")
		for _, s := range skipped {
			fmt.Fprintf(c.stdout, "  %s: %s\n", oneLine(s.Name), oneLine(s.Reason))
		}
	}
	for _, s := range l.Skills {
		if s.Status == "untrusted" {
			fmt.Fprintf(c.stdout, "\nProject skills not trusted yet are not loaded. Trust one with:\n  tinyelf skills trust %s --workspace %s\n", oneLine(s.Name), oneLine(l.Workspace))
			break
		}
	}
	return exitOK
}

func (c skillsCmd) show(ctx context.Context, name string) int {
	d, err := c.k.GetSkill(ctx, api.SkillArgs{Workspace: c.workspace, Name: name})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	if c.json {
		return c.writeJSON(d)
	}
	fmt.Fprintf(c.stdout, "%s (%s, %s)\n", oneLine(d.Name), d.Source, d.Status)
	if d.Reason != "" {
		fmt.Fprintf(c.stdout, "%s\n", text(d.Reason))
	}
	fmt.Fprintf(c.stdout, "Location: %s\n", oneLine(d.Location))
	if d.AllowedTools != "" {
		fmt.Fprintf(c.stdout, "Allowed tools: %s\n", oneLine(d.AllowedTools))
	}
	for _, w := range d.Warnings {
		fmt.Fprintf(c.stdout, "Warning: %s\n", oneLine(w))
	}
	fmt.Fprintf(c.stdout, "\n%s\n", text(strings.TrimRight(d.Content, "\n")))
	if len(d.Files) > 0 {
		fmt.Fprintln(c.stdout, "\nFiles:")
		for _, f := range d.Files {
			fmt.Fprintf(c.stdout, "  %s\n", oneLine(f))
		}
		if d.FilesTruncated {
			fmt.Fprintln(c.stdout, "  (more not listed)")
		}
	}
	return exitOK
}

func (c skillsCmd) search(ctx context.Context, query string) int {
	res, err := c.k.SearchSkillHub(ctx, api.HubSearchArgs{Query: query})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	warn(c.stderr, res.Problems)
	if c.json {
		return c.writeJSON(res)
	}
	if len(res.Entries) == 0 {
		fmt.Fprintf(c.stdout, "No SkillHub skill matches %q.\n", oneLine(query))
		return exitOK
	}
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tVERSION\tDESCRIPTION")
	for _, e := range res.Entries {
		name := e.Name
		if id, ok := res.Installed[e.Name]; ok && id == e.ID {
			name += " (installed)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", oneLine(e.ID), oneLine(name), oneLine(e.Version), oneLine(cutRunes(e.Description, 80)))
	}
	tw.Flush()
	return exitOK
}

func (c skillsCmd) install(ctx context.Context, id string) int {
	inst, err := c.k.InstallSkill(ctx, api.HubInstallArgs{ID: id})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	warn(c.stderr, inst.Warnings)
	verb := "Installed"
	if inst.Replaced {
		verb = "Updated"
	}
	fmt.Fprintf(c.stdout, "%s skill %s into %s.\n", verb, oneLine(inst.Name), oneLine(inst.Dir))
	return exitOK
}

func (c skillsCmd) validate(ctx context.Context, dir string) int {
	rep, err := c.k.ValidateSkill(ctx, api.ValidateSkillArgs{Dir: dir})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	code := exitOK
	if !rep.Valid {
		code = exitError
	}
	if c.json {
		if c.writeJSON(rep) != exitOK {
			return exitError
		}
		return code
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(c.stdout, oneLine(p.String()))
	}
	switch {
	case !rep.Valid && rep.Loads:
		fmt.Fprintf(c.stderr, "%s is not a valid skill; TinyElf still loads it (forgiving what the Agent Skills client guide allows), stricter clients may not.\n", oneLine(dir))
	case !rep.Valid && rep.LoadProblem != nil:
		fmt.Fprintf(c.stderr, "%s is not a valid skill; TinyElf skips it and lists it as invalid: %s\n", oneLine(dir), oneLine(rep.LoadProblem.Message))
	case !rep.Valid:
		fmt.Fprintf(c.stderr, "%s is not a valid skill.\n", oneLine(dir))
	case len(rep.Problems) > 0:
		fmt.Fprintf(c.stdout, "%s is a valid skill (with warnings).\n", oneLine(dir))
	default:
		fmt.Fprintf(c.stdout, "%s is a valid skill.\n", oneLine(dir))
	}
	return code
}

func (c skillsCmd) trust(ctx context.Context, name, state string) int {
	l, err := c.k.SetSkillTrust(ctx, api.SkillTrustArgs{Workspace: c.workspace, Name: name, Trust: state})
	if err != nil {
		return fail(c.stderr, "skills", err)
	}
	switch state {
	case "trusted":
		fmt.Fprintf(c.stdout, "Skill %s is trusted in %s.\n", oneLine(name), oneLine(l.Workspace))
	case "denied":
		fmt.Fprintf(c.stdout, "Skill %s is denied in %s: the agent will not use it.\n", oneLine(name), oneLine(l.Workspace))
	default:
		fmt.Fprintf(c.stdout, "Skill %s in %s is untrusted again: the agent asks before using it.\n", oneLine(name), oneLine(l.Workspace))
	}
	return exitOK
}

func (c skillsCmd) writeJSON(v any) int {
	if err := writeJSON(c.stdout, v); err != nil {
		return fail(c.stderr, "skills", err)
	}
	return exitOK
}

// cutRunes shortens s to n characters for a table cell.
func cutRunes(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
