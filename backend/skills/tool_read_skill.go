package skills

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/tools"
)

//go:embed read_skill.md
var readSkillDescription string

var readSkillParams = json.RawMessage(`{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "The skill's name, as in the skills index."},
    "file": {"type": "string", "description": "Optional: a file of the skill to read instead of its instructions, relative to the skill's folder (references/guide.md)."}
  },
  "required": ["name"],
  "additionalProperties": false
}`)

// TrustAsker asks the user whether a project skill may guide the agent (an
// approval card with TrustRequest.Question). It returns TrustTrusted or
// TrustDenied, which read_skill saves for the workspace, or
// TrustUntrusted for "not now", which is not saved. The engine satisfies
// it; without one (tinyelf run without --yes) untrusted project skills are
// refused with a message saying how to trust them.
type TrustAsker interface {
	AskTrust(ctx context.Context, req TrustRequest) (TrustState, error)
}

// CapabilityLoadedKey is the Result.Meta key read_skill and slash_command
// set when a skill's instructions enter the conversation; the engine logs a
// capability.loaded event from it. Its value is a map with "id"
// (skill__<name>), "kind" ("skill") and "source".
const CapabilityLoadedKey = "capabilityLoaded"

type readSkillTool struct {
	lib   *Library
	asker TrustAsker
}

// NewReadSkill returns the read_skill tool: a skill's body and file list
// (the seed's ReadSkillTool). asker may be nil.
func NewReadSkill(lib *Library, asker TrustAsker) tools.Tool {
	return &readSkillTool{lib: lib, asker: asker}
}

func (t *readSkillTool) Info() tools.Info {
	return tools.Info{Name: "read_skill", Description: readSkillDescription, Parameters: readSkillParams,
		ReadOnly: true, Safe: true, Source: tools.SourceSkill, Title: "Read skill"}
}

func (t *readSkillTool) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	name := strings.TrimSpace(tools.String(params, "name", ""))
	sk, ok := t.lib.Get(name)
	if !ok {
		return unknownSkill(t.lib, name), nil
	}
	note, res, ok := t.gate(ctx, sk)
	if !ok {
		return res, nil
	}
	if file := strings.TrimSpace(tools.String(params, "file", "")); file != "" {
		return readSkillFile(sk, file), nil
	}
	body, err := sk.Body()
	if err != nil {
		return tools.Errorf("Skill %q cannot be read now: %v", sk.Name, err), nil
	}
	files, truncated, err := sk.Files(0)
	if err != nil {
		files = nil
	}
	content := skillContent(sk, body, files, truncated)
	if note != "" {
		content += "\n" + note
	}
	return tools.Result{Content: content, Meta: loadedMeta(sk, files)}, nil
}

// gate applies the skill's trust and invocation rules: ok false carries
// the refusal; note is a remark to add to a successful result.
func (t *readSkillTool) gate(ctx context.Context, sk *Skill) (note string, refusal tools.Result, ok bool) {
	if sk.DisableModelInvocation {
		return "", tools.Errorf("Skill %q can only be run by the user (as /%s); do not load it yourself.", sk.Name, sk.Name), false
	}
	switch t.lib.Trust(sk) {
	case TrustDenied:
		return "", tools.Errorf("The user denied the project skill %q in this workspace; do not use it.", sk.Name), false
	case TrustUntrusted:
		req, _ := t.lib.TrustRequestFor(sk.Name)
		if t.asker == nil {
			return "", tools.Errorf("%s", t.lib.HowToTrust(sk.Name)), false
		}
		answer, err := t.asker.AskTrust(ctx, req)
		if err != nil {
			return "", tools.Errorf("Could not ask the user whether to trust skill %q: %v", sk.Name, err), false
		}
		if answer == TrustTrusted || answer == TrustDenied {
			if err := t.lib.SetTrust(sk.Name, answer); err != nil {
				// The answer holds for this call; it is just not remembered.
				note = fmt.Sprintf("(The user's answer could not be saved: %v.)", err)
			}
		}
		if answer != TrustTrusted {
			return "", tools.Errorf("The user did not trust the project skill %q; do not use it.", sk.Name), false
		}
	}
	return note, tools.Result{}, true
}

func unknownSkill(lib *Library, name string) tools.Result {
	var names []string
	for _, sk := range lib.Snapshot().Skills {
		if !sk.DisableModelInvocation && lib.Trust(sk) != TrustDenied {
			names = append(names, sk.Name)
		}
	}
	if len(names) == 0 {
		return tools.Errorf("No skill named %q: no skills are installed.", name)
	}
	return tools.Errorf("No skill named %q. Available skills: %s.", name, strings.Join(names, ", "))
}

// skillContent wraps a skill's body the way the Agent Skills client guide
// suggests, so the model (and compaction) can tell it apart.
func skillContent(sk *Skill, body string, files []string, truncated bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "<skill_content name=%q source=%q>\n", sk.Name, sk.Source)
	sb.WriteString(body)
	sb.WriteString("\n\n")
	if sk.Embedded() {
		fmt.Fprintf(&sb, "This skill is built into TinyElf. Read its files with read_skill(name=%q, file=...).\n", sk.Name)
	} else {
		fmt.Fprintf(&sb, "Skill folder: %s\nRelative paths in this skill are relative to that folder: read its files with Read and run its scripts with Bash, using absolute paths.\n", sk.Dir)
	}
	if len(sk.AllowedTools) > 0 {
		fmt.Fprintf(&sb, "Pre-approved while this skill is active: %s\n", sk.AllowedTools.String())
	}
	if sk.Compatibility != "" {
		fmt.Fprintf(&sb, "Compatibility: %s\n", sk.Compatibility)
	}
	if len(files) > 0 {
		sb.WriteString("<skill_resources>\n")
		for _, f := range files {
			fmt.Fprintf(&sb, "  <file>%s</file>\n", f)
		}
		if truncated {
			sb.WriteString("  (more files not listed)\n")
		}
		sb.WriteString("</skill_resources>\n")
	}
	sb.WriteString("</skill_content>")
	return sb.String()
}

// loadedMeta is the Meta of a result that loads a skill.
func loadedMeta(sk *Skill, files []string) map[string]any {
	m := map[string]any{
		CapabilityLoadedKey: map[string]any{"id": sk.ID(), "kind": "skill", "source": string(sk.Source)},
		"skill":             sk.Name,
		"dir":               sk.Dir,
		"location":          sk.Location(),
	}
	if len(files) > 0 {
		m["files"] = files
	}
	if len(sk.AllowedTools) > 0 {
		m["allowedTools"] = sk.AllowedTools
	}
	if sk.Context == ContextFork {
		m["context"], m["agent"] = ContextFork, sk.Agent
	}
	if sk.Model != "" {
		m["model"] = sk.Model
	}
	return m
}

// maxSkillFileChars bounds one file returned by read_skill(file).
const maxSkillFileChars = 100 * 1024

func readSkillFile(sk *Skill, file string) tools.Result {
	data, err := sk.ReadFile(file)
	if err != nil {
		files, _, _ := sk.Files(0)
		return tools.Errorf("Cannot read %s of skill %q: %v. Its files: %s.", file, sk.Name, err, strings.Join(files, ", "))
	}
	if !utf8.Valid(data) || strings.ContainsRune(string(data), 0) {
		return tools.Errorf("%s of skill %q is a binary file (%s); it cannot be shown as text.", file, sk.Name, humanBytes(int64(len(data))))
	}
	text := string(data)
	if len(text) > maxSkillFileChars {
		cut := maxSkillFileChars
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "\n" + tools.TruncatedMark
	}
	return tools.Result{Content: text, Meta: map[string]any{"skill": sk.Name, "file": file}}
}
