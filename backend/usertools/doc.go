// Package usertools runs the tools users — and agents — write themselves
// (seed 002): a file dropped into a folder becomes a tool, without
// rebuilding TinyElf, and goes through the same pipeline as every other
// tool (coercion, validation, permission, truncation, audit).
//
// # Folders
//
//	<data dir>/common_tools/               common tools, every agent
//	<data dir>/agents/<agent>/tools/       the agent's personal tools
//	<data dir>/agents/<agent>/permissions.json   tool_creation and gated actions
//	<data dir>/vault.json, vault.key       the encrypted credential vault
//	<data dir>/shared/credentials.json     the shared credentials file
//	<data dir>/state/tool_tasks/           background task records
//	<data dir>/cache/usertools/            the Python host and bytecode
//
// Discovery merges common then personal tools, personal winning on a
// name ({**common, **personal}); a tool named like a core tool is skipped
// and reported; files starting with "_" are not scanned. Folders are
// scanned when an agent's tools are first needed and again only on
// refresh_tools.
//
// # Forms
//
// A Python module (<name>.py) in the seed's format — get_tool_schemas(),
// dispatch(name, args) or same-named functions, optional cli_main(argv),
// optional EXECUTION_PROFILE and CREDENTIALS — runs under python3 through
// an embedded host script: JSON on stdin, one envelope on stdout, in a
// process of its own for every call. On Unix that process is forked from a
// warm host (the fork server), which saves the interpreter's start-up and
// the host's imports but keeps everything a fresh process gives: the
// module is imported anew, nothing a call leaves behind reaches the next,
// each call has its own environment, session and process group. Without
// fork (Windows) or with Options.ProcessPerCall every call starts its own
// interpreter. A kept worker (one process serving many calls) was measured
// too and not taken: it is no faster than a fork where it matters, and it
// would carry module state, credentials and a hang from one call to the
// next. Schemas are read by importing modules in a host with a per-module
// timeout, many modules per process.
//
// Any executable with a <name>.tool.json manifest (description, command,
// schemas, profile, credentials, cli) reads one JSON request on stdin and
// prints one JSON value on stdout.
//
// # Running
//
// Each action becomes a tools.Tool named {tool}_{action} (Source
// tools.SourceUserTool, Origin "common" or "personal"); use_tool reaches
// every action by name. The process gets a minimal environment (PATH,
// HOME, locale, temporary folder, proxies) plus the credentials its tool
// declares (CREDENTIALS, the profile) or asks for by name in its code
// (get_credential calls with literal arguments, found when it is scanned),
// resolved in the seed's order — the agent profile's credential of that
// name, the Settings one, the vault, the shared file, the environment
// (never TinyElf's own key variables) — one variable each and all in
// TINYELF_CREDENTIALS, which the Python helpers' get_credential reads.
// Credential values are masked out of everything a call returns. Python
// tools find TinyElf's library on their path: tinyelf_tool, and
// core.tools._base for tools written for the seed's layout. expected_seconds (default 60) is the
// timeout, after which the process group is killed. Gated actions need an
// explicit permission entry in every mode; background-eligible actions can
// be submitted as tasks that notify when they end.
package usertools
