package skills

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxSkillFileBytes bounds SKILL.md and the files read through a skill. The
// spec recommends bodies under 5000 tokens (some 20 KB); a megabyte is far
// past any real skill and still cheap to read.
const maxSkillFileBytes = 1 << 20

// Problem is one thing wrong with a skill, with the file and line it is on
// (Line 0 when it concerns the whole file or folder).
type Problem struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Field is the frontmatter field concerned, if any.
	Field string `json:"field,omitempty"`
	// Rule names the rule broken ("name-format", "unknown-field", ...), for
	// callers that treat some rules differently.
	Rule    string `json:"rule"`
	Message string `json:"message"`
	// Warning marks problems that do not make the skill invalid (a body past
	// the recommended 500 lines); Validate's caller exits 1 only for the
	// others.
	Warning bool `json:"warning,omitempty"`
}

// String renders the problem as file:line: message.
func (p Problem) String() string {
	var sb strings.Builder
	sb.WriteString(p.File)
	if p.Line > 0 {
		sb.WriteString(":" + strconv.Itoa(p.Line))
	}
	sb.WriteString(": ")
	if p.Warning {
		sb.WriteString("warning: ")
	}
	sb.WriteString(p.Message)
	return sb.String()
}

// document is SKILL.md split into frontmatter and body.
type document struct {
	yaml     string // the frontmatter text, LF line ends
	yamlLine int    // file line of the frontmatter's first line
	body     string // trimmed
	bodyLine int    // file line where the body starts
	lines    int    // lines in the body
}

// splitDocument checks that data is UTF-8 text with a frontmatter block and
// splits it. The problem's File is left for the caller to fill.
func splitDocument(data []byte) (*document, *Problem) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return nil, &Problem{Rule: "encoding", Message: "SKILL.md is UTF-16, not UTF-8; save it as UTF-8"}
	case !utf8.Valid(data):
		off := 0
		for off < len(data) {
			r, n := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			off += n
		}
		line := bytes.Count(data[:off], []byte("\n")) + 1
		return nil, &Problem{Rule: "encoding", Line: line, Message: fmt.Sprintf("SKILL.md is not UTF-8 text (byte 0x%02X on line %d); save it as UTF-8", data[off], line)}
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return nil, &Problem{Rule: "frontmatter-missing", Line: 1, Message: "SKILL.md has no frontmatter: it must start with a line '---', then at least name: and description:, then a closing '---'"}
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if l := strings.TrimRight(lines[i], " \t"); l == "---" || l == "..." {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, &Problem{Rule: "frontmatter-unclosed", Line: 1, Message: "the frontmatter that starts on line 1 is never closed with a '---' line"}
	}
	rest := strings.Join(lines[end+1:], "\n")
	body := strings.TrimSpace(rest)
	lead := len(rest) - len(strings.TrimLeft(rest, " \t\n"))
	doc := &document{
		yaml:     strings.Join(lines[1:end], "\n"),
		yamlLine: 2,
		body:     body,
		bodyLine: end + 2 + strings.Count(rest[:lead], "\n"),
	}
	if body != "" {
		doc.lines = strings.Count(body, "\n") + 1
	}
	return doc, nil
}

// field is one top-level frontmatter entry.
type field struct {
	key  string
	line int // file line of the key
	val  *yaml.Node
}

// frontmatter is the parsed frontmatter block.
type frontmatter struct {
	fields []field
	// repaired lists the file lines whose unquoted values were quoted to
	// make the YAML parse.
	repaired []int
	// duplicates are keys given more than once (the first one counts).
	duplicates []field
}

func (fm *frontmatter) get(key string) (field, bool) {
	for _, f := range fm.fields {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// repairs says whether parseFrontmatter may retry YAML that does not
// parse. Loading a skill, installing one and loading a Markdown command use
// the same retry, so that install accepts exactly what the loader loads;
// only `skills validate` is strict.
type repairs int

const (
	// strictYAML makes no retry (`skills validate`).
	strictYAML repairs = iota
	// lenientYAML makes the one retry of the Agent Skills client guide:
	// unquoted plain values that other clients' parsers accept and strict
	// YAML refuses are quoted, and the block parsed again. They are a value
	// containing ': ' or ending in ':' (`description: Use when: the user
	// asks`, the guide's case), and an argument-hint written as several
	// bracketed words (`argument-hint: [file] [format]`, as Claude Code's
	// own documentation writes it). Nothing else is guessed: YAML that
	// still fails makes the skill invalid, skipped and reported with the
	// parser's message (`description: [unclosed` is not read as text).
	lenientYAML
)

// parseFrontmatter parses the YAML block, making the retry mode allows;
// the lines a retry changed are recorded.
func parseFrontmatter(doc *document, mode repairs) (*frontmatter, *Problem) {
	root, err := parseYAML(doc.yaml)
	var repaired []int
	if err != nil && mode == lenientYAML {
		if fixed, lines := quoteColonValues(doc.yaml); len(lines) > 0 {
			if r2, err2 := parseYAML(fixed); err2 == nil {
				root, err = r2, nil
				for _, l := range lines {
					repaired = append(repaired, l+doc.yamlLine-1)
				}
			}
		}
	}
	if err != nil {
		return nil, yamlProblem(doc, err, mode)
	}
	fm := &frontmatter{repaired: repaired}
	if root == nil {
		return fm, nil // an empty block
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Problem{Rule: "yaml", Line: root.Line + doc.yamlLine - 1, Message: fmt.Sprintf("the frontmatter must be a mapping of fields (name: ..., description: ...), not %s", nodeKind(root))}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		f := field{key: k.Value, line: k.Line + doc.yamlLine - 1, val: v}
		if seen[f.key] {
			fm.duplicates = append(fm.duplicates, f)
			continue
		}
		seen[f.key] = true
		fm.fields = append(fm.fields, f)
	}
	return fm, nil
}

// parseYAML parses one YAML document and returns its top node (nil for an
// empty document).
func parseYAML(text string) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// yamlProblem turns a YAML error into the problem reported for the skill:
// the parser's message with the file's line, and a hint at the usual
// causes.
func yamlProblem(doc *document, err error, mode repairs) *Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := doc.yamlLine
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if parserError(msg) {
			n++ // the YAML package counts these from 0
		}
		line = n + doc.yamlLine - 1
		msg = strings.Replace(msg, m[0], "line "+strconv.Itoa(line), 1)
	}
	lines := strings.Split(doc.yaml, "\n")
	var hints []string
	if _, colons := quoteColonValues(doc.yaml); len(colons) > 0 && mode == strictYAML {
		hints = append(hints, "a value containing ': ' or written as [a] [b] must be quoted")
	}
	for _, l := range lines {
		if m := plainValueRE.FindStringSubmatch(l); m != nil && (m[3][0] == '[' || m[3][0] == '{') {
			var n yaml.Node
			if yaml.Unmarshal([]byte("k: "+strings.TrimSpace(m[3])), &n) != nil {
				hints = append(hints, fmt.Sprintf("%s: starts with '%c', which begins a YAML list or mapping; quote the value to write text", m[2], m[3][0]))
				break
			}
		}
	}
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "\t") {
			hints = append(hints, "YAML does not allow tabs for indentation; indent with spaces")
			break
		}
	}
	hint := ""
	if len(hints) > 0 {
		hint = " (" + strings.Join(hints, "; ") + ")"
	}
	return &Problem{Rule: "yaml", Line: line, Message: "the frontmatter is not valid YAML: " + msg + hint}
}

// parserError reports whether a YAML message comes from the parser rather
// than the scanner: yaml.v3 gives the former's line counted from 0.
func parserError(msg string) bool {
	for _, p := range []string{"did not find expected <document start>", "did not find expected node content",
		"did not find expected key", "did not find expected '-' indicator", "did not find expected ',' or ']'",
		"did not find expected ',' or '}'"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

var plainValueRE = regexp.MustCompile(`^(\s*)([A-Za-z0-9_.-]+):[ \t]+(\S.*)$`)

// quoteColonValues double-quotes the plain values that published skills
// write and strict YAML refuses: `description: Use when: the user asks`
// (the client guide's case) and Claude Code's `argument-hint: [file]
// [format]`. Any other value that YAML reads as something other than a
// plain scalar (quoted, a block, a flow list or mapping, an anchor, alias
// or tag) is never touched. It returns the new text and the (1-based)
// lines it changed.
func quoteColonValues(text string) (string, []int) {
	lines := strings.Split(text, "\n")
	var changed []int
	for i, l := range lines {
		m := plainValueRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		val := strings.TrimRight(m[3], " \t")
		switch val[0] {
		case '"', '\'', '|', '>', '&', '*', '!', '#':
			continue
		case '[', '{':
			if m[2] != "argument-hint" || !bracketWords.MatchString(val) {
				continue
			}
		default:
			if !strings.Contains(val, ": ") && !strings.HasSuffix(val, ":") {
				continue
			}
		}
		quoted := strings.ReplaceAll(val, `\`, `\\`)
		quoted = strings.ReplaceAll(quoted, `"`, `\"`)
		lines[i] = m[1] + m[2] + `: "` + quoted + `"`
		changed = append(changed, i+1)
	}
	return strings.Join(lines, "\n"), changed
}

// bracketWords is Claude Code's argument-hint style: `[a] [b c] [d]`.
var bracketWords = regexp.MustCompile(`^(\[[^\[\]]*\]\s*){2,}$`)

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!bool":
			return "a boolean"
		case "!!int", "!!float":
			return "a number"
		case "!!null":
			return "empty"
		}
		return "text"
	}
	return "something else"
}

// scalarText returns a scalar's text; ok is false for lists and mappings.
// A null scalar is "".
func scalarText(n *yaml.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.Tag == "!!null" {
		return "", true
	}
	return n.Value, true
}

// boolValue reads a YAML boolean, also written as a string ("true", "no").
func boolValue(n *yaml.Node) (bool, bool) {
	s, ok := scalarText(n)
	if !ok {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// wordList reads a field that may be a space-separated string or a YAML
// list of strings (allowed-tools, arguments).
func wordList(n *yaml.Node) ([]string, bool) {
	if s, ok := scalarText(n); ok {
		return strings.Fields(s), true
	}
	if n.Kind != yaml.SequenceNode {
		return nil, false
	}
	var out []string
	for _, c := range n.Content {
		s, ok := scalarText(c)
		if !ok {
			return nil, false
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, true
}

// hintText reads argument-hint, which people write unquoted as
// `[issue-number]`, so YAML sees a list.
func hintText(n *yaml.Node) (string, bool) {
	if s, ok := scalarText(n); ok {
		return strings.TrimSpace(s), true
	}
	if n.Kind != yaml.SequenceNode {
		return "", false
	}
	var parts []string
	for _, c := range n.Content {
		s, ok := scalarText(c)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ", ") + "]", true
}

// stringMap reads metadata: a mapping whose values are kept as text (a
// nested value is kept as its YAML).
func stringMap(n *yaml.Node) (map[string]string, bool) {
	if n.Kind != yaml.MappingNode {
		return nil, false
	}
	out := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if s, ok := scalarText(v); ok {
			out[k.Value] = s
			continue
		}
		b, err := yaml.Marshal(v)
		if err != nil {
			continue
		}
		out[k.Value] = strings.TrimSpace(string(b))
	}
	return out, true
}
