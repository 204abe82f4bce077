// Package capabilities is TinyElf's capability discovery (seed 003): the
// catalog of everything the agent could use — tools of every source, skills,
// MCP resources and prompts, the surface's own channels — and the policy
// that picks, for each model call, the small set the model sees.
//
// The pieces, in the order a turn uses them:
//
//   - Catalog holds Entries (a Descriptor plus its runtime binding) in
//     partitions, one per source (the local tools, one MCP server, a skill
//     folder…). Sources replace their partition when they change; readers
//     take an immutable Snapshot without waiting, so refreshing a thousand
//     descriptors never blocks a turn.
//   - Discovery is one session's memory: which capabilities ToolSearch found
//     or the model used, which it failed to call, which paths it touched.
//   - Compute applies the discovery policy to a session's View of the
//     catalog and its Inputs, and returns the VisibleSet: what is visible
//     with full schemas, what is deferred to a one-line index, what is
//     hidden, each with its reason.
//   - DiffSets explains how a VisibleSet differs from the previous one; the
//     engine logs it as a capability.diff event.
//   - ToolSearch is the tool the model calls to find more; the engine
//     answers it through a Searcher put in the call's context.
//
// Visibility is not permission: a visible tool still goes through the
// permission gate, and a search hit is never an authorization.
package capabilities
