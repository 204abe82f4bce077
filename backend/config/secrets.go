package config

import (
	"regexp"
	"strings"
	"unicode"
)

// SecretEnvNames returns the names of the environment variables that hold
// TinyElf's own credentials, which no child process (a Bash command, an MCP
// server, a hook, a user tool) may inherit: the provider keys TinyElf reads,
// and anything of TinyElf's own named like a token, key, secret or password
// (serve and bridge tokens, OAuth tokens). Entries may hold * wildcards. The
// engine adds the key variables of the provider presets in use.
func SecretEnvNames() []string {
	return []string{
		EnvOpenAIKey, EnvAnthropicKey,
		"TINYELF_*TOKEN*", "TINYELF_*SECRET*", "TINYELF_*KEY*", "TINYELF_*PASSWORD*",
	}
}

// SecretValues returns the secret values stored in the settings: the
// providers' and web search providers' API keys, the user tools' Settings
// credentials (and the agents' own), and the literal values of MCP servers' env entries and
// headers that look like secrets (a ${VAR} reference is not a secret; the
// variable it names is the user's). A child process never gets a variable
// holding one of them, whatever its name, unless its own config names it.
func (s Settings) SecretValues() []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= minSecretLen {
			out = append(out, v)
		}
	}
	for _, p := range s.Providers {
		add(p.APIKey)
	}
	for _, p := range s.Web.Search {
		add(p.APIKey)
	}
	creds := []map[string]Credential{s.Credentials}
	for _, a := range s.Agents {
		creds = append(creds, a.Credentials)
	}
	for _, m := range creds {
		for _, c := range m {
			add(c.APIKey)
			for _, v := range c.Keys {
				add(v)
			}
		}
	}
	servers := append([]MCPServer(nil), s.MCPServers...)
	for _, a := range s.Agents {
		servers = append(servers, a.DirectMCPServers...)
	}
	for _, m := range servers {
		for k, v := range m.Env {
			if LooksSecret(k, v) {
				add(secretPart(v))
			}
		}
		for k, v := range m.Headers {
			if LooksSecret(k, v) {
				add(secretPart(v))
			}
		}
	}
	return out
}

// minSecretLen is the shortest value treated as a secret value (shorter
// ones, such as "ollama", would hide unrelated variables).
const minSecretLen = 8

var (
	envRefPattern   = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}`)
	secretKeyName   = regexp.MustCompile(`(?i)(key|token|secret|passw|pwd|auth|credential|cookie|session|private|signature|bearer|cert)`)
	secretPrefixes  = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "AKIA", "ASIA", "AIza", "ya29.", "eyJ", "hf_", "npm_", "pypi-"}
	authSchemes     = []string{"bearer ", "basic ", "token ", "digest ", "apikey ", "api-key "}
	urlCredentials  = regexp.MustCompile(`://[^/@\s:]+:[^/@\s]+@`)
	tokenCharacters = regexp.MustCompile(`^[A-Za-z0-9_\-.+/=~]{24,}$`)
)

// LooksSecret reports whether an MCP server's env entry or header (name and
// value) looks like it holds a credential: a name like *KEY*, *TOKEN*,
// *SECRET*, Authorization…, or a value shaped like a key (a known key prefix,
// an auth scheme, credentials in a URL, a long random-looking string). A
// value that is only ${VAR} references, with or without an auth scheme, holds
// no secret of its own and is not one.
func LooksSecret(name, value string) bool {
	rest := strings.TrimSpace(secretPart(value))
	if rest == "" {
		return false
	}
	if secretKeyName.MatchString(name) {
		return true
	}
	for _, p := range secretPrefixes {
		if strings.HasPrefix(rest, p) && len(rest) >= len(p)+8 {
			return true
		}
	}
	if urlCredentials.MatchString(value) {
		return true
	}
	return tokenCharacters.MatchString(rest) && !strings.HasPrefix(rest, "/") && hasLetterAndDigit(rest)
}

// secretPart is a value without its ${VAR} references and its auth scheme:
// what, of it, is a literal credential.
func secretPart(value string) string {
	v := strings.TrimSpace(envRefPattern.ReplaceAllString(value, ""))
	lower := strings.ToLower(v)
	for _, s := range authSchemes {
		if strings.HasPrefix(lower, s) {
			return strings.TrimSpace(v[len(s):])
		}
	}
	if strings.EqualFold(v, strings.TrimSpace(authSchemes[0])) || strings.EqualFold(v, "basic") || strings.EqualFold(v, "token") {
		return ""
	}
	return v
}

func hasLetterAndDigit(s string) bool {
	var letter, digit bool
	for _, r := range s {
		letter = letter || unicode.IsLetter(r)
		digit = digit || unicode.IsDigit(r)
	}
	return letter && digit
}

// MaskPrefix starts every masked value.
const MaskPrefix = "••••••••"

// MaskValue returns how a secret value is shown: MaskPrefix and, for a long
// value, its last four characters; an auth scheme ("Bearer ") is kept in
// front, so the user can tell what the value is.
func MaskValue(value string) string {
	v := strings.TrimSpace(value)
	scheme := ""
	lower := strings.ToLower(v)
	for _, s := range authSchemes {
		if strings.HasPrefix(lower, s) {
			scheme, v = v[:len(s)], v[len(s):]
			break
		}
	}
	hint := ""
	if r := []rune(v); len(r) >= 16 {
		hint = string(r[len(r)-4:])
	}
	return scheme + MaskPrefix + hint
}

// MaskMCPServer returns s with the env values and header values that look
// like secrets masked (MaskValue), for showing it: in the UI, `mcp list`.
// UnmaskMCPServer undoes it when the shown server is saved back.
func MaskMCPServer(s MCPServer) MCPServer {
	s.Env = maskMap(s.Env)
	s.Headers = maskMap(s.Headers)
	if s.OAuth != nil && s.OAuth.ClientSecret != "" {
		o := *s.OAuth
		if !strings.Contains(o.ClientSecret, "${") {
			o.ClientSecret = MaskValue(o.ClientSecret)
		}
		s.OAuth = &o
	}
	return s
}

func maskMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if LooksSecret(k, v) {
			v = MaskValue(v)
		}
		out[k] = v
	}
	return out
}

// UnmaskMCPServer returns edited with every value still masked as
// MaskMCPServer showed it replaced by the value stored for the same name in
// stored, so a form saved without touching a secret keeps it. A value the
// user typed is kept as typed.
func UnmaskMCPServer(edited, stored MCPServer) MCPServer {
	edited.Env = unmaskMap(edited.Env, stored.Env)
	edited.Headers = unmaskMap(edited.Headers, stored.Headers)
	if edited.OAuth != nil && stored.OAuth != nil && stored.OAuth.ClientSecret != "" &&
		strings.TrimSpace(edited.OAuth.ClientSecret) == MaskValue(stored.OAuth.ClientSecret) {
		o := *edited.OAuth
		o.ClientSecret = stored.OAuth.ClientSecret
		edited.OAuth = &o
	}
	return edited
}

func unmaskMap(edited, stored map[string]string) map[string]string {
	if edited == nil {
		return nil
	}
	out := make(map[string]string, len(edited))
	for k, v := range edited {
		if old, ok := stored[k]; ok && LooksSecret(k, old) && strings.TrimSpace(v) == MaskValue(old) {
			v = old
		}
		out[k] = v
	}
	return out
}

// HasMasked reports whether a server still holds a masked value (one that
// UnmaskMCPServer could not restore), which must not be saved or started as
// if it were the secret.
func HasMasked(s MCPServer) bool {
	if s.OAuth != nil && strings.Contains(s.OAuth.ClientSecret, MaskPrefix) {
		return true
	}
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			if strings.Contains(v, MaskPrefix) {
				return true
			}
		}
	}
	return false
}
