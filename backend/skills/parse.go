package skills

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The spec's limits.
const (
	MaxNameLength          = 64
	MaxDescriptionLength   = 1024
	MaxCompatibilityLength = 500
)

// specFields are the frontmatter fields of the Agent Skills specification.
var specFields = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// claudeFields are the fields Claude Code adds; Validate accepts them and
// the loader reads those TinyElf acts on (the rest stay in Skill.Extra).
var claudeFields = []string{
	"user-invocable", "disable-model-invocation", "argument-hint", "arguments", "model",
	"context", "agent", "when_to_use", "effort", "hooks", "paths", "shell",
}

func knownField(key string) bool {
	return slices.Contains(specFields, key) || slices.Contains(claudeFields, key)
}

// nameProblems checks a skill name against the spec's rules (the reference
// validator's reading: Unicode lowercase letters and digits, hyphens).
func nameProblems(name string) []string {
	var out []string
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		out = append(out, fmt.Sprintf("name %q is %d characters long, over the limit of %d", name, n, MaxNameLength))
	}
	if strings.ToLower(name) != name {
		out = append(out, fmt.Sprintf("name %q must be lowercase", name))
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, fmt.Sprintf("name %q must not start or end with a hyphen", name))
	}
	if strings.Contains(name, "--") {
		out = append(out, fmt.Sprintf("name %q must not contain consecutive hyphens", name))
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' {
			out = append(out, fmt.Sprintf("name %q may contain only letters, digits and hyphens, not %q", name, r))
			break
		}
	}
	return out
}

// folderNameProblem says why name cannot be the name of a skill's folder,
// or "" when it can. Installing names the folder after the skill, and a
// hidden folder is not looked in, so a skill whose name fails here is
// refused by both the loader and install rather than loaded in one and not
// the other.
func folderNameProblem(name string) string {
	switch {
	case name == "." || name == "..":
		return fmt.Sprintf("name %q is not a usable name", name)
	case strings.HasPrefix(name, "."):
		return fmt.Sprintf("name %q starts with a dot, which hides its folder", name)
	case len(name) > 255:
		return fmt.Sprintf("name is %d bytes long, more than a folder name can be", len(name))
	case strings.ContainsAny(name, `/\`):
		return fmt.Sprintf("name %q contains a path separator", name)
	case strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Sprintf("name %q contains a control character", name)
	}
	return ""
}

// parseSkill reads SKILL.md leniently, as the client guide says: the
// problems it forgives become warnings on the skill; the ones it cannot
// (returned as a Problem) make the skill invalid. dirName is the skill's
// folder name.
func parseSkill(data []byte, dirName string) (*Skill, *Problem) {
	doc, prob := splitDocument(data)
	if prob != nil {
		return nil, prob
	}
	fm, prob := parseFrontmatter(doc, lenientYAML)
	if prob != nil {
		return nil, prob
	}
	s := &Skill{UserInvocable: true}
	for _, l := range fm.repaired {
		s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: a value containing ': ' (or written as [a] [b]) is not quoted, which strict YAML refuses; it was read as quoted text", l))
	}
	for _, d := range fm.duplicates {
		s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: %s is given twice; the first one counts", d.line, d.key))
	}
	warnType := func(f field, want string) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: %s should be %s, not %s; ignored", f.line, f.key, want, nodeKind(f.val)))
	}

	descField, ok := fm.get("description")
	if !ok {
		return nil, &Problem{Rule: "description-missing", Field: "description", Line: doc.yamlLine, Message: "the frontmatter has no description: (the model decides from it when to use the skill)"}
	}
	desc, ok := scalarText(descField.val)
	if !ok {
		return nil, &Problem{Rule: "description-type", Field: "description", Line: descField.line, Message: fmt.Sprintf("description must be text, not %s", nodeKind(descField.val))}
	}
	if s.Description = strings.TrimSpace(desc); s.Description == "" {
		return nil, &Problem{Rule: "description-empty", Field: "description", Line: descField.line, Message: "description is empty (the model decides from it when to use the skill)"}
	}

	if f, ok := fm.get("name"); ok {
		name, isText := scalarText(f.val)
		name = strings.TrimSpace(name)
		switch {
		case !isText:
			warnType(f, "text")
		case name == "":
			s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: name is empty; the folder's name %q is used", f.line, dirName))
		case folderNameProblem(name) != "":
			return nil, &Problem{Rule: "name-unsafe", Field: "name", Line: f.line, Message: folderNameProblem(name) + "; a skill's name must be usable as its folder's name"}
		default:
			s.Name = name
			for _, p := range nameProblems(name) {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: %s", f.line, p))
			}
			if name != dirName {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: name %q differs from its folder %q", f.line, name, dirName))
			}
		}
	} else {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the frontmatter has no name:; the folder's name %q is used", dirName))
	}
	if s.Name == "" {
		s.Name = dirName
	}

	for _, f := range fm.fields {
		switch f.key {
		case "name", "description":
		case "license", "compatibility", "model", "context", "agent", "when_to_use":
			v, ok := scalarText(f.val)
			if !ok {
				warnType(f, "text")
				continue
			}
			v = strings.TrimSpace(v)
			switch f.key {
			case "license":
				s.License = v
			case "compatibility":
				s.Compatibility = v
			case "model":
				if v != "inherit" {
					s.Model = v
				}
			case "context":
				if v != "" && v != ContextFork && v != "inherit" {
					s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: context %q is neither fork nor inherit; the skill runs inline", f.line, v))
				} else if v == ContextFork {
					s.Context = ContextFork
				}
			case "agent":
				s.Agent = v
			case "when_to_use":
				s.WhenToUse = v
			}
		case "metadata":
			m, ok := stringMap(f.val)
			if !ok {
				warnType(f, "a mapping of names to text")
				continue
			}
			s.Metadata = m
		case "allowed-tools":
			words, ok := allowedToolsText(f.val)
			if !ok {
				warnType(f, "a space-separated list of tools")
				continue
			}
			tools, errs := ParseAllowedTools(words)
			s.AllowedTools = tools
			for _, e := range errs {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: allowed-tools: %v", f.line, e))
			}
		case "user-invocable", "user-invokable", "disable-model-invocation":
			b, ok := boolValue(f.val)
			if !ok {
				warnType(f, "true or false")
				continue
			}
			if f.key == "disable-model-invocation" {
				s.DisableModelInvocation = b
			} else {
				s.UserInvocable = b
			}
		case "argument-hint":
			h, ok := hintText(f.val)
			if !ok {
				warnType(f, "text")
				continue
			}
			s.ArgumentHint = h
		case "arguments":
			args, ok := wordList(f.val)
			if !ok {
				warnType(f, "a list of names")
				continue
			}
			s.Arguments = args
		default:
			var v any
			if err := f.val.Decode(&v); err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("line %d: %s: %v", f.line, f.key, err))
				continue
			}
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[f.key] = v
		}
	}
	return s, nil
}
