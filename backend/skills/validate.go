package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxBodyLines is the spec's recommended limit for a SKILL.md body.
const maxBodyLines = 500

// Validate checks the skill folder dir strictly, the way the reference
// validator (skills-ref validate) does, and returns every problem found
// with its file and line; none means the skill is valid. On top of the
// reference's rules it checks the types of the Claude Code fields TinyElf
// reads, the allowed-tools syntax, that relative links in the body point at
// files that exist, and (as a warning) the recommended 500-line body limit.
// Claude Code's own fields are accepted; any other field is an
// unknown-field problem, as in the reference validator.
func Validate(dir string) []Problem {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return []Problem{{File: dir, Rule: "not-found", Message: fmt.Sprintf("the folder cannot be opened: %v", err)}}
	case !st.IsDir():
		return []Problem{{File: dir, Rule: "not-a-folder", Message: "not a folder: a skill is a folder with a SKILL.md in it"}}
	}
	file := filepath.Join(dir, "SKILL.md")
	if _, err := os.Stat(file); err != nil {
		if alt := filepath.Join(dir, "skill.md"); fileExists(alt) {
			file = alt
		} else {
			return []Problem{{File: file, Rule: "skill-md-missing", Message: "missing required file SKILL.md"}}
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	fi, err := os.Stat(file)
	if err != nil {
		return []Problem{{File: file, Rule: "unreadable", Message: err.Error()}}
	}
	if fi.Size() > maxSkillFileBytes {
		return []Problem{{File: file, Rule: "too-large", Message: fmt.Sprintf("SKILL.md is %s, over the %s limit", humanBytes(fi.Size()), humanBytes(maxSkillFileBytes))}}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return []Problem{{File: file, Rule: "unreadable", Message: err.Error()}}
	}
	return validateData(data, file, filepath.Base(abs), dir)
}

// validateData checks one SKILL.md's content. dirName is the folder's name;
// dir (may be "") is where relative links are resolved.
func validateData(data []byte, file, dirName, dir string) []Problem {
	doc, prob := splitDocument(data)
	if prob != nil {
		prob.File = file
		return []Problem{*prob}
	}
	fm, prob := parseFrontmatter(doc, strictYAML)
	if prob != nil {
		prob.File = file
		return []Problem{*prob}
	}
	var out []Problem
	add := func(line int, fieldName, rule, format string, args ...any) {
		out = append(out, Problem{File: file, Line: line, Field: fieldName, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	for _, d := range fm.duplicates {
		add(d.line, d.key, "duplicate-field", "field %s is given more than once", d.key)
	}
	for _, f := range fm.fields {
		if !knownField(f.key) {
			add(f.line, f.key, "unknown-field", "unexpected field %q in the frontmatter; the spec allows %s (and Claude Code %s)", f.key, strings.Join(specFields, ", "), strings.Join(claudeFields, ", "))
		}
	}

	if f, ok := fm.get("name"); !ok {
		add(doc.yamlLine, "name", "name-missing", "missing required field: name")
	} else if name, isText := scalarText(f.val); !isText || strings.TrimSpace(name) == "" {
		add(f.line, "name", "name-missing", "field name must be non-empty text")
	} else {
		name = strings.TrimSpace(name)
		for _, p := range nameProblems(name) {
			add(f.line, "name", "name-format", "%s", p)
		}
		if name != dirName {
			add(f.line, "name", "name-dir-mismatch", "name %q must match the folder's name %q", name, dirName)
		}
	}

	if f, ok := fm.get("description"); !ok {
		add(doc.yamlLine, "description", "description-missing", "missing required field: description")
	} else if desc, isText := scalarText(f.val); !isText || strings.TrimSpace(desc) == "" {
		add(f.line, "description", "description-empty", "field description must be non-empty text")
	} else if n := utf8.RuneCountInString(desc); n > MaxDescriptionLength {
		add(f.line, "description", "description-length", "description is %d characters long, over the limit of %d", n, MaxDescriptionLength)
	}

	if f, ok := fm.get("compatibility"); ok {
		if c, isText := scalarText(f.val); !isText || strings.TrimSpace(c) == "" {
			add(f.line, "compatibility", "compatibility-type", "compatibility must be non-empty text when given")
		} else if n := utf8.RuneCountInString(c); n > MaxCompatibilityLength {
			add(f.line, "compatibility", "compatibility-length", "compatibility is %d characters long, over the limit of %d", n, MaxCompatibilityLength)
		}
	}
	if f, ok := fm.get("license"); ok {
		if _, isText := scalarText(f.val); !isText {
			add(f.line, "license", "license-type", "license must be text, not %s", nodeKind(f.val))
		}
	}
	if f, ok := fm.get("metadata"); ok {
		if f.val.Kind != yaml.MappingNode {
			add(f.line, "metadata", "metadata-type", "metadata must be a mapping of names to text, not %s", nodeKind(f.val))
		} else {
			for i := 0; i+1 < len(f.val.Content); i += 2 {
				k, v := f.val.Content[i], f.val.Content[i+1]
				if _, isText := scalarText(v); !isText {
					add(k.Line+doc.yamlLine-1, "metadata", "metadata-type", "metadata.%s must be text, not %s", k.Value, nodeKind(v))
				}
			}
		}
	}
	if f, ok := fm.get("allowed-tools"); ok {
		if text, isText := allowedToolsText(f.val); !isText {
			add(f.line, "allowed-tools", "allowed-tools-type", "allowed-tools must be a space-separated string of tools, not %s", nodeKind(f.val))
		} else {
			_, errs := ParseAllowedTools(text)
			for _, e := range errs {
				add(f.line, "allowed-tools", "allowed-tools-syntax", "allowed-tools: %v", e)
			}
		}
	}
	for _, key := range []string{"user-invocable", "disable-model-invocation"} {
		if f, ok := fm.get(key); ok {
			if _, isBool := boolValue(f.val); !isBool {
				add(f.line, key, "type", "%s must be true or false, not %s", key, nodeKind(f.val))
			}
		}
	}
	for _, key := range []string{"model", "agent", "when_to_use", "effort", "shell"} {
		if f, ok := fm.get(key); ok {
			if _, isText := scalarText(f.val); !isText {
				add(f.line, key, "type", "%s must be text, not %s", key, nodeKind(f.val))
			}
		}
	}
	if f, ok := fm.get("argument-hint"); ok {
		if _, isText := scalarText(f.val); !isText {
			add(f.line, "argument-hint", "type", "argument-hint must be quoted text (unquoted [brackets] are a YAML list)")
		}
	}
	if f, ok := fm.get("arguments"); ok {
		if _, isList := wordList(f.val); !isList {
			add(f.line, "arguments", "type", "arguments must be a list of names, not %s", nodeKind(f.val))
		}
	}
	if f, ok := fm.get("context"); ok {
		if c, _ := scalarText(f.val); c != ContextFork && c != "inherit" {
			add(f.line, "context", "context-value", "context must be fork or inherit, not %q", c)
		}
	}

	if doc.lines > maxBodyLines {
		out = append(out, Problem{File: file, Line: doc.bodyLine, Rule: "body-length", Warning: true,
			Message: fmt.Sprintf("the body is %d lines long; keep SKILL.md under %d lines and move details to references/", doc.lines, maxBodyLines)})
	}
	if dir != "" {
		out = append(out, checkLinks(doc, file, dir)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

var mdLinkRE = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// checkLinks reports relative Markdown links in the body whose files do not
// exist in the skill's folder, or that leave it.
func checkLinks(doc *document, file, dir string) []Problem {
	var out []Problem
	inFence := false
	for i, line := range strings.Split(doc.body, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		for _, m := range mdLinkRE.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if target == "" {
				continue
			}
			lineNo := doc.bodyLine + i
			if filepath.IsAbs(target) || !filepath.IsLocal(filepath.FromSlash(target)) {
				out = append(out, Problem{File: file, Line: lineNo, Rule: "link-outside", Message: fmt.Sprintf("link %q leaves the skill's folder; use a path relative to it", m[1])})
				continue
			}
			if !fileExists(filepath.Join(dir, filepath.FromSlash(target))) {
				out = append(out, Problem{File: file, Line: lineNo, Rule: "link-missing", Message: fmt.Sprintf("link %q points at a file that does not exist in the skill's folder", m[1])})
			}
		}
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// HasErrors reports whether any problem is not a warning: the CLI's
// `skills validate` exits 1 then.
func HasErrors(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return !p.Warning })
}
