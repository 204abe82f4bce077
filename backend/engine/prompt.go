package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"tinyelf/backend/capabilities"
	"tinyelf/backend/config"
	"tinyelf/backend/tools/fs"
)

// basePrompt is the start of every system prompt.
const basePrompt = `You are TinyElf, an AI agent that works on the user's computer through tools: you read and edit files in the workspace, run commands, and report back.

How to work:
- Understand the request, look at the relevant files before changing them, and make the smallest change that does the job.
- Use the tools instead of guessing: Read before Edit, Grep and Glob to find things, Bash to build and test.
- Paths are relative to the workspace folder. Tool results that start with an error explain what went wrong: adjust instead of repeating the same call.
- Some calls need the user's approval. If the user denies one, respect their reason.
- When you are done, answer briefly: what you did, what you found, and anything the user must decide.`

// systemPrompt builds the system prompt of a turn: the base, the agent's
// prompt, facts about the workspace and the date. It changes at most once a
// day for a session, so provider prompt caches stay warm.
func systemPrompt(info SessionInfo, agent config.Agent, ws *fs.Workspace, project []capabilities.ProjectType, now time.Time) string {
	var sb strings.Builder
	sb.WriteString(basePrompt)
	if p := strings.TrimSpace(agent.Prompt); p != "" {
		sb.WriteString("\n\n")
		sb.WriteString(p)
	}
	sb.WriteString("\n\n# Environment\n")
	fmt.Fprintf(&sb, "- Workspace: %s\n", info.Workspace)
	if facts := workspaceFacts(info.Workspace, project); facts != "" {
		fmt.Fprintf(&sb, "- Project: %s\n", facts)
	}
	if ws != nil && ws.Restricted() {
		sb.WriteString("- File tools can only reach files inside the workspace.\n")
	}
	if ws != nil {
		for _, r := range ws.Roots() {
			access := "read-only"
			if r.Writable {
				access = "writable"
			}
			fmt.Fprintf(&sb, "- File tools also reach %s by absolute path (%s; %s).\n", r.Dir, r.Reason, access)
		}
	}
	fmt.Fprintf(&sb, "- Operating system: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&sb, "- Today's date: %s\n", now.Format("2006-01-02 (Monday)"))
	fmt.Fprintf(&sb, "- Permission mode: %s (%s)\n", info.Mode, modeHelp(info.Mode))
	if info.Parent != "" {
		sb.WriteString(subagentPrompt)
	}
	return sb.String()
}

// subagentPrompt tells a subagent what it is: its answer goes to the agent
// that spawned it, and its tools are the ones passed on.
const subagentPrompt = `
# You are a subagent
Another agent started you for the task in the first message; your final answer is returned to it, not shown to the user as a reply. Work only on that task, and end with a complete, self-contained answer: what you found or did, with the paths, names and facts the other agent needs. You have only the tools it passed on to you; ToolSearch finds only among them. If the task cannot be done with them, say so in your answer instead of working around it.
`

func modeHelp(m Mode) string {
	switch m {
	case ModePlan:
		return "read-only: investigate and propose a plan; you cannot change files or run commands"
	case ModeAcceptEdits:
		return "file edits run without asking; commands ask the user"
	case ModeAuto:
		return "everything runs without asking, except what rules forbid"
	}
	return "reading is free; edits and commands ask the user first"
}

// workspaceFacts describes the workspace from the project types its root
// reveals.
func workspaceFacts(dir string, project []capabilities.ProjectType) string {
	if len(project) == 0 {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("%d entries at the top level of %s", len(entries), filepath.Base(dir))
	}
	facts := make([]string, len(project))
	for i, p := range project {
		facts[i] = p.Label
	}
	sort.Strings(facts)
	return strings.Join(facts, ", ")
}
