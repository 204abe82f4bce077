package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// paramSchema is a tool's parameter schema, parsed once at registration.
type paramSchema struct {
	root *jsonschema.Schema
	// resolved validates the whole schema; nil when the schema uses features
	// the validator cannot resolve (an external $ref, say), in which case only
	// the required and type checks run.
	resolved *jsonschema.Resolved
}

func compileSchema(raw json.RawMessage) (*paramSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON Schema: %w", err)
	}
	if t := schemaTypes(&s); len(t) > 0 && !slices.Contains(t, "object") {
		return nil, fmt.Errorf("parameters schema must be of type object, not %s", strings.Join(t, "|"))
	}
	ps := &paramSchema{root: &s}
	// Validate against a copy without $schema: servers in the wild declare
	// drafts the validator does not know, and the keywords we check mean the
	// same in all of them.
	c := s
	c.Schema = ""
	if rs, err := c.Resolve(nil); err == nil {
		ps.resolved = rs
	}
	return ps, nil
}

func schemaTypes(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	if s.Type != "" {
		return []string{s.Type}
	}
	return s.Types
}

// coerce repairs the type errors models commonly make, guided by the schema.
// It returns params (possibly modified in place).
func (ps *paramSchema) coerce(params map[string]any) map[string]any {
	required := ps.root.Required
	for name, v := range params {
		prop := ps.root.Properties[name]
		if v == nil && !slices.Contains(required, name) {
			// Optional parameters sent as null mean "not given".
			delete(params, name)
			continue
		}
		if prop != nil {
			params[name] = coerceValue(v, prop)
		}
	}
	return params
}

func coerceValue(v any, s *jsonschema.Schema) any {
	types := schemaTypes(s)
	if len(types) == 0 {
		return v
	}
	if got := jsonKind(v); slices.Contains(types, got) || (got == "integer" && slices.Contains(types, "number")) {
		return coerceChildren(v, s)
	}
	for _, t := range types {
		if c, ok := convert(v, t, s); ok {
			return coerceChildren(c, s)
		}
	}
	return v
}

// coerceChildren coerces the members of objects and arrays.
func coerceChildren(v any, s *jsonschema.Schema) any {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			if p := s.Properties[k]; p != nil {
				x[k] = coerceValue(child, p)
			}
		}
	case []any:
		if s.Items != nil {
			for i, child := range x {
				x[i] = coerceValue(child, s.Items)
			}
		}
	}
	return v
}

// convert tries to turn v into JSON type t.
func convert(v any, t string, s *jsonschema.Schema) (any, bool) {
	switch t {
	case "integer", "number":
		var f float64
		switch x := v.(type) {
		case string:
			n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
				return nil, false
			}
			f = n
		case bool:
			return nil, false
		default:
			return nil, false
		}
		if t == "integer" && f != math.Trunc(f) {
			return nil, false
		}
		return f, true
	case "boolean":
		if x, ok := v.(string); ok {
			switch strings.ToLower(strings.TrimSpace(x)) {
			case "true", "yes", "1":
				return true, true
			case "false", "no", "0":
				return false, true
			}
		}
		if x, ok := v.(float64); ok && (x == 0 || x == 1) {
			return x == 1, true
		}
		return nil, false
	case "string":
		switch x := v.(type) {
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		case bool:
			return strconv.FormatBool(x), true
		}
		return nil, false
	case "object", "array":
		if x, ok := v.(string); ok {
			trimmed := strings.TrimSpace(x)
			var decoded any
			if json.Unmarshal([]byte(trimmed), &decoded) == nil && jsonKind(decoded) == t {
				return decoded, true
			}
		}
		if t == "array" && v != nil {
			if _, isArr := v.([]any); !isArr {
				// A single value where a list is expected.
				item := v
				if s.Items != nil {
					item = coerceValue(v, s.Items)
				}
				return []any{item}, true
			}
		}
		return nil, false
	}
	return nil, false
}

// validate returns "" when params satisfy the schema, or a message naming
// the parameter and what was expected.
func (ps *paramSchema) validate(params map[string]any) string {
	var missing []string
	for _, name := range ps.root.Required {
		if v, ok := params[name]; !ok || v == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		parts := make([]string, len(missing))
		for i, name := range missing {
			parts[i] = describeParam(name, ps.root.Properties[name])
		}
		return "missing required parameter " + strings.Join(parts, ", ")
	}
	names := make([]string, 0, len(params))
	for name := range params {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := ps.root.Properties[name]
		types := schemaTypes(prop)
		if len(types) == 0 {
			continue
		}
		got := jsonKind(params[name])
		if !slices.Contains(types, got) && !(got == "integer" && slices.Contains(types, "number")) {
			return fmt.Sprintf("parameter %q must be %s, got %s %s", name, strings.Join(types, " or "), got, preview(params[name]))
		}
		if len(prop.Enum) > 0 && !slices.ContainsFunc(prop.Enum, func(e any) bool { return equalJSON(e, params[name]) }) {
			return fmt.Sprintf("parameter %q must be one of %s, got %s", name, preview(prop.Enum), preview(params[name]))
		}
		if n, ok := params[name].(float64); ok {
			if prop.Minimum != nil && n < *prop.Minimum {
				return fmt.Sprintf("parameter %q must be at least %s, got %s", name, formatNum(*prop.Minimum), formatNum(n))
			}
			if prop.Maximum != nil && n > *prop.Maximum {
				return fmt.Sprintf("parameter %q must be at most %s, got %s", name, formatNum(*prop.Maximum), formatNum(n))
			}
		}
	}
	if ps.resolved != nil {
		if err := ps.resolved.Validate(params); err != nil {
			return err.Error()
		}
	}
	return ""
}

func describeParam(name string, s *jsonschema.Schema) string {
	if s == nil {
		return fmt.Sprintf("%q", name)
	}
	d := fmt.Sprintf("%q", name)
	if t := schemaTypes(s); len(t) > 0 {
		d += " (" + strings.Join(t, "|") + ")"
	}
	if s.Description != "" {
		d += ": " + s.Description
	}
	return d
}

// jsonKind names the JSON type of a decoded value; integral numbers are
// "integer" (which JSON Schema also accepts as "number").
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case int, int64, int32:
		return "integer"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func preview(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return CutUTF8(string(b), 80) + "…"
	}
	return string(b)
}

func equalJSON(a, b any) bool {
	ab, _ := json.Marshal(a)
	bb, _ := json.Marshal(b)
	return string(ab) == string(bb)
}

func formatNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
