package mcp

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"tinyelf/backend/config"
)

// LookupEnv is how this package reads the environment: os.LookupEnv in
// production, a map in tests.
type LookupEnv func(name string) (string, bool)

// envRef matches ${VAR} and ${VAR:-default} (the forms Claude Code and
// Claude Desktop configs use).
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${VAR} and ${VAR:-default} in s. A variable that is
// unset (or empty, for the :- form) and has no default is reported in
// missing and replaced by "".
func expandEnv(s string, lookup LookupEnv) (out string, missing []string) {
	out = envRef.ReplaceAllStringFunc(s, func(m string) string {
		g := envRef.FindStringSubmatch(m)
		v, ok := lookup(g[1])
		if g[2] != "" { // ${VAR:-default}
			if !ok || v == "" {
				return g[3]
			}
			return v
		}
		if !ok {
			missing = append(missing, g[1])
			return ""
		}
		return v
	})
	return out, missing
}

// resolveServer returns s with the environment references expanded in every
// field that may hold one (command, args, env values, cwd, url, header
// values) and its type normalized. It fails when a referenced variable is unset, so a
// missing token is reported as such instead of as a confusing 401.
func resolveServer(s config.MCPServer, lookup LookupEnv) (config.MCPServer, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var missing []string
	exp := func(v string) string {
		out, m := expandEnv(v, lookup)
		missing = append(missing, m...)
		return out
	}
	r := s
	r.Type = normalizeType(s.Type, s)
	r.Command = exp(s.Command)
	r.Args = make([]string, len(s.Args))
	for i, a := range s.Args {
		r.Args[i] = exp(a)
	}
	if s.Env != nil {
		r.Env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			r.Env[k] = exp(v)
		}
	}
	r.Cwd = exp(s.Cwd)
	r.URL = exp(s.URL)
	if s.Headers != nil {
		r.Headers = make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			r.Headers[k] = exp(v)
		}
	}
	if s.OAuth != nil {
		o := *s.OAuth
		o.ClientID, o.ClientSecret = exp(o.ClientID), exp(o.ClientSecret)
		r.OAuth = &o
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		refs := make([]string, len(missing))
		for i, m := range missing {
			refs[i] = "${" + m + "}"
		}
		if len(missing) == 1 {
			return config.MCPServer{}, fmt.Errorf("environment variable %s is not set; the server's configuration uses %s", missing[0], refs[0])
		}
		return config.MCPServer{}, fmt.Errorf("environment variables %s are not set; the server's configuration uses %s",
			strings.Join(missing, ", "), strings.Join(refs, ", "))
	}
	return r, nil
}

// The transport types of a configured server.
const (
	TypeStdio = "stdio"
	TypeHTTP  = "http"
	TypeSSE   = "sse"
)

// normalizeType maps the spellings found in the wild onto TypeStdio,
// TypeHTTP or TypeSSE; it returns the input unchanged when it is unknown.
// An empty type means stdio when there is a command and http when there is
// only a url.
func normalizeType(t string, s config.MCPServer) string {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "":
		if s.Command == "" && s.URL != "" {
			return TypeHTTP
		}
		return TypeStdio
	case "stdio", "local":
		return TypeStdio
	case "http", "streamable-http", "streamablehttp", "streamable_http":
		return TypeHTTP
	case "sse":
		return TypeSSE
	}
	return t
}
