package skills

import "tinyelf/backend/tools"

// ToolsOptions says what the skills tools work with.
type ToolsOptions struct {
	// Library is the workspace's skills (required).
	Library *Library
	// Hub adds skillhub_search and skillhub_install (nil: left out).
	Hub *Hub
	// Trust asks the user about project skills (nil: untrusted ones are
	// refused with a message saying how to trust them).
	Trust TrustAsker
	// SlashCommand configures slash_command.
	SlashCommand SlashCommandOptions
}

// Tools returns the skills tools in the seed's registry-builder order:
// list_skills and read_skill (step 5), skillhub_search and
// skillhub_install (step 6), slash_command (step 9). list_skills,
// read_skill and slash_command are the ones a subagent inherits (seed 000).
func Tools(o ToolsOptions) []tools.Tool {
	out := []tools.Tool{NewListSkills(o.Library), NewReadSkill(o.Library, o.Trust)}
	if o.Hub != nil {
		out = append(out, NewSkillHubSearch(o.Hub), NewSkillHubInstall(o.Hub, o.Library))
	}
	return append(out, NewSlashCommand(o.Library, o.SlashCommand))
}

// InheritableToolNames returns the skills tools a subagent inherits from
// its parent (seed 000's inheritableToolNames, less the MCP tools).
func InheritableToolNames() []string { return []string{"list_skills", "read_skill", "slash_command"} }
