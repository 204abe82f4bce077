package mcp

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"
)

// ToolPrefix starts the name of every tool (and prompt command) that comes
// from an MCP server: mcp__<server>__<tool>. The seed's subagent inheritance
// rule keys on it.
const ToolPrefix = "mcp__"

// MaxToolNameLen is the longest function name OpenAI and Anthropic accept.
const MaxToolNameLen = 64

// hashLen is the length of the hex suffix that keeps shortened or colliding
// names apart.
const hashLen = 8

var unsafeNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// serverNamePattern is what a configured server name must look like: it goes
// into tool names verbatim, and a name a user can type keeps CLI use easy.
var serverNamePattern = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,47}$`)

// ValidServerName reports whether name is acceptable as a configured server
// name: 1 to 48 letters, digits, '-' or '_', starting with a letter or digit.
func ValidServerName(name string) bool { return serverNamePattern.MatchString(name) }

// sanitize replaces every run of characters outside [a-zA-Z0-9_-] with '_'.
func sanitize(s string) string {
	s = unsafeNameChars.ReplaceAllString(s, "_")
	if s == "" {
		return "_"
	}
	return s
}

// ToolName returns the tool name for tool on server before collisions are
// resolved: mcp__<server>__<tool>, sanitized to [a-zA-Z0-9_-] and, when
// longer than MaxToolNameLen, cut with a short hash of the original pair so
// that two long names stay apart.
func ToolName(server, tool string) string {
	name := ToolPrefix + sanitize(server) + "__" + sanitize(tool)
	if len(name) <= MaxToolNameLen {
		return name
	}
	return withHash(name, server, tool)
}

// withHash cuts name so that "_" and a hash of (server, tool) fit within
// MaxToolNameLen, and appends them.
func withHash(name, server, tool string) string {
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "_" + hex.EncodeToString(sum[:])[:hashLen]
	keep := min(len(name), MaxToolNameLen-len(suffix))
	return name[:keep] + suffix
}

// nameKey identifies one MCP tool (or prompt) across servers.
type nameKey struct{ server, item string }

// assignNames returns a unique name for each key, in the same order. Keys
// whose sanitized names collide are ordered by (server, item); the first
// keeps the plain name and the others get a hash suffix, so the result
// depends only on the set of keys, not on the order they arrived in.
func assignNames(keys []nameKey) []string {
	names := make([]string, len(keys))
	groups := map[string][]int{}
	for i, k := range keys {
		names[i] = ToolName(k.server, k.item)
		groups[names[i]] = append(groups[names[i]], i)
	}
	for _, idx := range groups {
		if len(idx) < 2 {
			continue
		}
		slices.SortFunc(idx, func(a, b int) int {
			return cmp.Or(strings.Compare(keys[a].server, keys[b].server), strings.Compare(keys[a].item, keys[b].item))
		})
		for _, i := range idx[1:] {
			names[i] = withHash(names[i], keys[i].server, keys[i].item)
		}
	}
	return names
}
