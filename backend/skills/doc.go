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
// even after quoting `key: value: more` lines, that is not UTF-8 or that is
// too large is listed as invalid with the exact problem and skipped. Nothing
// one skill does breaks the loading of the others. Validate is the strict
// counterpart for `tinyelf skills validate`.
//
// The package imports only backend/tools and backend/config. The engine,
// the capability catalog, the API and the CLI use it; none of them is
// needed to use or test it.
package skills
