package tools

import "math"

// String returns params[name] as a string, or def when absent.
func String(params map[string]any, name, def string) string {
	if s, ok := params[name].(string); ok {
		return s
	}
	return def
}

// Int returns params[name] as an int, or def when absent or not a number.
// Validation has already made sure integer parameters are integral.
func Int(params map[string]any, name string, def int) int {
	switch x := params[name].(type) {
	case float64:
		if x > math.MaxInt32 {
			return math.MaxInt32
		}
		if x < math.MinInt32 {
			return math.MinInt32
		}
		return int(x)
	case int:
		return x
	}
	return def
}

// Bool returns params[name] as a bool, or def when absent.
func Bool(params map[string]any, name string, def bool) bool {
	if b, ok := params[name].(bool); ok {
		return b
	}
	return def
}

// Strings returns params[name] as a string slice, skipping non-strings.
func Strings(params map[string]any, name string) []string {
	arr, _ := params[name].([]any)
	out := make([]string, 0, len(arr))
	for _, v := range arr {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
