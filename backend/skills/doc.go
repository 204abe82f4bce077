// Package skills holds TinyElf's Agent Skills runtime: loading SKILL.md
// folders from their sources (builtin, user, project), strict validation as
// the reference validator does it, the trust of project skills, watching the
// skill folders, the progressive-loading index, allowed-tools in Claude
// Code's syntax, SkillHub search and install, Markdown slash commands, and
// the skills tools (list_skills, read_skill, skillhub_search,
// skillhub_install, slash_command).
//
// A skill is a folder <name>/SKILL.md with YAML frontmatter (name,
// description, license, compatibility, metadata, allowed-tools and Claude
// Code's user-invocable, disable-model-invocation, argument-hint, arguments,
// model, context, agent) and a Markdown body, plus optional scripts/,
// references/ and assets/. Only the index (name and a capped description) is
// meant for the model's view; the body is read on demand with read_skill,
// the other files with Read.
//
// Loading is lenient (the Agent Skills client guide): a name that differs
// from its folder or breaks the naming rules loads with a warning; a file
// without frontmatter, without a description, with YAML that does not parse
// even after the guide's one retry (quoting an unquoted `key: value: more`
// value, or Claude Code's `argument-hint: [a] [b]`), with a name that
// cannot be a folder's, that is not UTF-8 or that is too large is listed as
// invalid with the exact problem (the parser's message and line) and
// skipped. Nothing one skill does breaks the loading of the others.
// SkillHub installs by the same rules (LoadFolder); Validate is the strict
// counterpart for `tinyelf skills validate`.
//
// # Wiring (for the engine, the catalog, the API and the CLI)
//
//   - One Library per workspace: NewLibrary(opts, trust) with
//     DefaultOptions(workspace) and OpenTrustStore(<data dir>/TrustFile).
//     TrustProject is `tinyelf run --yes`. Library.Watch reloads it when a
//     skills folder changes and reports []Change (added, changed, removed,
//     invalid, each with a Reason) for the capability.diff event.
//   - Catalog: every Snapshot().Skills entry is a descriptor of kind skill
//     with identity Skill.ID() (skill__<name>); its index line is
//     IndexEntryFor(sk, DefaultIndexDescriptionRunes).Line, or use
//     Library.Index(...).Text() for the whole block. Library.Index leaves out
//     denied project skills and disable-model-invocation ones.
//   - Tools: Tools(ToolsOptions{...}) gives list_skills, read_skill,
//     skillhub_search, skillhub_install and slash_command. A result whose
//     Meta has CapabilityLoadedKey loaded a skill: log capability.loaded,
//     apply Meta["allowedTools"] (an AllowedTools) for the rest of the turn
//     through AllowedTools.Allows or AllowedTools.Rules, after deny rules,
//     plan mode and the shell deny list; Meta "context": "fork" asks for a
//     subagent (Meta "agent"), Meta "model" for another model. For a
//     Markdown command (Meta "kind": "markdown") allowed-tools filter the
//     registry: Registry.Filtered(AllowedTools.Names(registry.Names())).
//   - Trust: a TrustAsker turns Library.TrustRequestFor's question into an
//     approval card; without one, untrusted project skills are refused with
//     HowToTrust's text. Settings → Skills uses Library.List, SetTrust.
//   - Read access: Library.ReadableDirs are the skill folders the Read tool
//     may read (read-only) outside the workspace.
//   - Compaction: replace a loaded skill's body with CompactedNote(name).
//   - Composer: Library.Commands(prompts) lists the "/" menu;
//     Library.RunCommand(ctx, CommandCall{..., ByUser: true}, prompts)
//     renders what the user typed. PromptSource adapts the MCP service.
//   - SkillHub: NewHub(opts.UserSkillsDir(), indexURLs) with the index URLs
//     from the settings (config.Skills.Indexes: the default one until the
//     user sets a list); Hub.Search, Hub.Install, Hub.Remove back the CLI
//     and the UI; reload the library after an install or removal.
//   - `tinyelf skills validate DIR`: print Validate(DIR), exit 1 when
//     HasErrors.
//
// The package imports only backend/tools and backend/config. The engine,
// the capability catalog, the API and the CLI use it; none of them is
// needed to use or test it.
package skills
