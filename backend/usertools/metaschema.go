package usertools

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// checkMetaSchema checks a parameter schema (decoded with encoding/json)
// against the rules of its draft's meta-schema (2020-12 unless its $schema
// names another) that the registry's validator, github.com/google/jsonschema-go,
// does not check when it decodes and resolves a schema: a misspelt type, a
// "required" that lists a name twice, a negative minLength, an empty
// allOf, an anchor that is not a name. The rules are those of drafts 4, 6
// and 7, 2019-09 and 2020-12, each keyword checked only in the drafts that
// define it; no reference is ever fetched. The error names the first three
// problems, each at its JSON pointer.
func checkMetaSchema(doc any) error {
	url := defaultMetaSchema
	if m, ok := doc.(map[string]any); ok {
		if u, ok := m["$schema"].(string); ok && u != "" {
			url = u
		}
	}
	d, ok := draftOf(url)
	if !ok {
		return fmt.Errorf("its $schema %q is not a JSON Schema draft TinyElf knows", url)
	}
	w := metaWalker{d: d}
	w.schema("", doc)
	if len(w.problems) == 0 {
		return nil
	}
	if len(w.problems) > 3 {
		w.problems = append(w.problems[:3], "…")
	}
	return fmt.Errorf("%s", strings.Join(w.problems, "; "))
}

const defaultMetaSchema = "https://json-schema.org/draft/2020-12/schema"

// metaDraft is what a JSON Schema draft's meta-schema says differently.
type metaDraft struct {
	version int // 4, 6, 7, 2019 or 2020
	// anchor is the pattern of $anchor (and, in 2020-12, $dynamicAnchor),
	// nil before 2019-09.
	anchor *regexp.Regexp
}

var (
	anchor2019 = regexp.MustCompile(`^[A-Za-z][-A-Za-z0-9.:_]*$`)
	anchor2020 = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)
)

// draftOf maps a $schema URL to its draft, as JSON Schema tools read it:
// http or https, no fragment but an empty one.
func draftOf(url string) (metaDraft, bool) {
	u, frag, _ := strings.Cut(url, "#")
	if frag != "" {
		return metaDraft{}, false
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	} else {
		u = strings.TrimPrefix(u, "https://")
	}
	switch u {
	case "json-schema.org/schema", "json-schema.org/draft/2020-12/schema":
		return metaDraft{version: 2020, anchor: anchor2020}, true
	case "json-schema.org/draft/2019-09/schema":
		return metaDraft{version: 2019, anchor: anchor2019}, true
	case "json-schema.org/draft-07/schema":
		return metaDraft{version: 7}, true
	case "json-schema.org/draft-06/schema":
		return metaDraft{version: 6}, true
	case "json-schema.org/draft-04/schema":
		return metaDraft{version: 4}, true
	}
	return metaDraft{}, false
}

// simpleTypes are the names "type" may use.
var simpleTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// metaWalker walks one schema document, noting each problem.
type metaWalker struct {
	d        metaDraft
	problems []string
}

func (w *metaWalker) fail(at, format string, args ...any) {
	w.problems = append(w.problems, fmt.Sprintf("at '%s': ", at)+fmt.Sprintf(format, args...))
}

// schema checks one (sub)schema at pointer at: an object, or a boolean
// from draft 6 on.
func (w *metaWalker) schema(at string, v any) {
	s, ok := v.(map[string]any)
	if !ok {
		_, isBool := v.(bool)
		switch {
		case w.d.version < 6:
			w.fail(at, "got %s, want object", jsonKind(v))
		case !isBool:
			w.fail(at, "got %s, want boolean or object", jsonKind(v))
		}
		return
	}
	since := func(version int) bool { return w.d.version >= version }
	for _, key := range sortedKeys(s) {
		val := s[key]
		p := at + "/" + escapePointer(key)
		switch key {
		case "type":
			w.typeValue(p, val)
		case "required":
			w.stringArray(p, val)
		case "enum":
			arr, ok := w.array(p, val)
			if ok && w.d.version <= 7 {
				if len(arr) == 0 {
					w.fail(p, "minItems: got 0, want 1")
				}
				w.unique(p, arr)
			}
		case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
			w.nonNegativeInteger(p, val)
		case "maxContains", "minContains":
			if since(2019) {
				w.nonNegativeInteger(p, val)
			}
		case "multipleOf":
			if n, ok := val.(float64); !ok {
				w.fail(p, "got %s, want number", jsonKind(val))
			} else if n <= 0 {
				w.fail(p, "exclusiveMinimum: got %s, want 0", formatNumber(n))
			}
		case "allOf", "anyOf", "oneOf":
			w.schemaArray(p, val)
		case "prefixItems":
			if since(2020) {
				w.schemaArray(p, val)
			}
		case "items":
			if _, isArray := val.([]any); isArray && w.d.version < 2020 {
				w.schemaArray(p, val)
			} else {
				w.schema(p, val)
			}
		case "additionalItems":
			if w.d.version < 2020 {
				w.schema(p, val)
			}
		case "not", "additionalProperties":
			w.schema(p, val)
		case "contains", "propertyNames":
			if since(6) {
				w.schema(p, val)
			}
		case "if", "then", "else":
			if since(7) {
				w.schema(p, val)
			}
		case "unevaluatedItems", "unevaluatedProperties", "contentSchema":
			if since(2019) {
				w.schema(p, val)
			}
		case "properties", "patternProperties", "definitions":
			w.schemaMap(p, val)
		case "$defs", "dependentSchemas":
			if since(2019) {
				w.schemaMap(p, val)
			}
		case "dependencies":
			w.dependencies(p, val)
		case "dependentRequired":
			if since(2019) {
				if m, ok := w.object(p, val); ok {
					for _, k := range sortedKeys(m) {
						w.stringArray(p+"/"+escapePointer(k), m[k])
					}
				}
			}
		case "$anchor":
			if w.d.anchor != nil {
				w.pattern(p, val, w.d.anchor)
			}
		case "$dynamicAnchor":
			if since(2020) {
				w.pattern(p, val, w.d.anchor)
			}
		case "$recursiveAnchor":
			switch w.d.version {
			case 2019:
				if _, ok := val.(bool); !ok {
					w.fail(p, "got %s, want boolean", jsonKind(val))
				}
			case 2020:
				w.pattern(p, val, w.d.anchor)
			}
		case "$id":
			if id, ok := val.(string); ok && since(2019) && strings.Contains(strings.TrimSuffix(id, "#"), "#") {
				w.fail(p, "'%s' does not match pattern '^[^#]*#?$'", id)
			}
		}
	}
}

// typeValue checks "type": a type name, or a non-empty list of distinct
// ones.
func (w *metaWalker) typeValue(at string, v any) {
	switch t := v.(type) {
	case string:
		if !slices.Contains(simpleTypes, t) {
			w.fail(at, "'%s' is not a type: value must be one of %s", t, quotedTypes())
		}
	case []any:
		if len(t) == 0 {
			w.fail(at, "minItems: got 0, want 1")
		}
		for i, e := range t {
			if s, ok := e.(string); !ok || !slices.Contains(simpleTypes, s) {
				w.fail(at+"/"+strconv.Itoa(i), "value must be one of %s", quotedTypes())
			}
		}
		w.unique(at, t)
	default:
		w.fail(at, "got %s, want string or array", jsonKind(v))
	}
}

func quotedTypes() string {
	q := make([]string, len(simpleTypes))
	for i, t := range simpleTypes {
		q[i] = "'" + t + "'"
	}
	return strings.Join(q, ", ")
}

// stringArray checks a list of distinct strings, non-empty in draft 4.
func (w *metaWalker) stringArray(at string, v any) {
	arr, ok := w.array(at, v)
	if !ok {
		return
	}
	for i, e := range arr {
		if _, ok := e.(string); !ok {
			w.fail(at+"/"+strconv.Itoa(i), "got %s, want string", jsonKind(e))
		}
	}
	if len(arr) == 0 && w.d.version == 4 {
		w.fail(at, "minItems: got 0, want 1")
	}
	w.unique(at, arr)
}

// schemaArray checks a non-empty list of schemas.
func (w *metaWalker) schemaArray(at string, v any) {
	arr, ok := w.array(at, v)
	if !ok {
		return
	}
	if len(arr) == 0 {
		w.fail(at, "minItems: got 0, want 1")
	}
	for i, e := range arr {
		w.schema(at+"/"+strconv.Itoa(i), e)
	}
}

// schemaMap checks an object whose values are schemas.
func (w *metaWalker) schemaMap(at string, v any) {
	m, ok := w.object(at, v)
	if !ok {
		return
	}
	for _, k := range sortedKeys(m) {
		w.schema(at+"/"+escapePointer(k), m[k])
	}
}

// dependencies checks "dependencies": each value a schema or a list of
// property names.
func (w *metaWalker) dependencies(at string, v any) {
	m, ok := w.object(at, v)
	if !ok {
		return
	}
	for _, k := range sortedKeys(m) {
		p := at + "/" + escapePointer(k)
		if _, isArray := m[k].([]any); isArray {
			w.stringArray(p, m[k])
		} else {
			w.schema(p, m[k])
		}
	}
}

func (w *metaWalker) nonNegativeInteger(at string, v any) {
	n, ok := v.(float64)
	switch {
	case !ok || n != math.Trunc(n):
		w.fail(at, "got %s, want integer", jsonKind(v))
	case n < 0:
		w.fail(at, "minimum: got %s, want 0", formatNumber(n))
	}
}

func (w *metaWalker) pattern(at string, v any, re *regexp.Regexp) {
	s, ok := v.(string)
	if !ok {
		w.fail(at, "got %s, want string", jsonKind(v))
		return
	}
	if !re.MatchString(s) {
		w.fail(at, "'%s' does not match pattern '%s'", s, re)
	}
}

func (w *metaWalker) array(at string, v any) ([]any, bool) {
	arr, ok := v.([]any)
	if !ok {
		w.fail(at, "got %s, want array", jsonKind(v))
	}
	return arr, ok
}

func (w *metaWalker) object(at string, v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		w.fail(at, "got %s, want object", jsonKind(v))
	}
	return m, ok
}

// unique notes the first pair of equal items of arr.
func (w *metaWalker) unique(at string, arr []any) {
	for i := range arr {
		for j := i + 1; j < len(arr); j++ {
			if reflect.DeepEqual(arr[i], arr[j]) {
				w.fail(at, "items at %d and %d are equal", i, j)
				return
			}
		}
	}
}

// jsonKind names a decoded JSON value's type as the spec does.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func formatNumber(n float64) string { return strconv.FormatFloat(n, 'g', -1, 64) }

// escapePointer escapes a key as a JSON pointer segment (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
