// Package agent holds the tools that reach the engine rather than the
// workspace: spawn_agent and subagent_list/subagent_status (through
// Spawner), the Sessions* tools (through SessionStore) and Notify (through
// Notifier). It declares those small interfaces; the engine passes in what
// satisfies them when it builds a registry, so the package imports only
// the tool contract.
package agent
