package proc

import (
	"path"
	"slices"
	"strings"
)

// Secrets names what must never reach a child process (a Bash command, an MCP
// server, a hook, a user tool): TinyElf's own credentials. The engine and the
// api fill it from the settings; this package only applies it.
type Secrets struct {
	// Names are variable names to drop. A name may hold * wildcards
	// ("TINYELF_*TOKEN*"); names compare case-sensitively, as on Unix.
	Names []string
	// Values are secret values: a variable holding one of them is dropped
	// whatever its name (a provider key the user also exported as MY_KEY).
	// Values shorter than MinSecretValueLen are ignored, so that a
	// placeholder such as "ollama" cannot hide USER=ollama.
	Values []string
}

// MinSecretValueLen is the shortest value Secrets.Values matches.
const MinSecretValueLen = 8

// ChildOfEnv is the variable Children sets on every process it starts, to
// recognise them (and everything they start) after a crash. CleanEnv drops an
// inherited one so that a child is never mistaken for another owner's.
const ChildOfEnv = "TINYELF_CHILD_OF"

// Hides reports whether the NAME=value entry kv is one of the secrets.
func (s Secrets) Hides(kv string) bool {
	name, value, _ := strings.Cut(kv, "=")
	for _, pat := range s.Names {
		if pat == name {
			return true
		}
		if strings.Contains(pat, "*") {
			if ok, _ := path.Match(pat, name); ok {
				return true
			}
		}
	}
	if len(value) >= MinSecretValueLen {
		for _, v := range s.Values {
			if len(v) >= MinSecretValueLen && strings.Contains(value, v) {
				return true
			}
		}
	}
	return false
}

// Merge returns the secrets of s and o together.
func (s Secrets) Merge(o Secrets) Secrets {
	return Secrets{
		Names:  slices.Concat(s.Names, o.Names),
		Values: slices.Concat(s.Values, o.Values),
	}
}

// CleanEnv returns the environment a child process starts with: base (the
// user's login environment, normally os.Environ()) without the secrets and
// without ChildOfEnv, followed by extra (NAME=value entries the caller names
// explicitly, such as an MCP server's configured env, which win over base and
// are kept even when they look like secrets: the user asked for them). Later
// entries win over earlier ones with the same name. base is not modified.
func CleanEnv(base []string, s Secrets, extra ...string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || name == ChildOfEnv || s.Hides(kv) {
			continue
		}
		out = append(out, kv)
	}
	return dedupEnv(append(out, extra...))
}

// dedupEnv keeps the last entry of every name, in the order of first
// appearance, so the environment a child sees is unambiguous whichever entry
// its libc's getenv would pick.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	out := env[:0:0]
	seen := make(map[string]bool, len(last))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, env[last[name]])
	}
	return out
}
