package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"tinyelf/backend/config"
)

// ImportReport says what an import did, server by server.
type ImportReport struct {
	// Format is the top-level key the servers were found under:
	// "mcpServers" (Claude Desktop, .mcp.json) or "servers" (VS Code).
	Format   string           `json:"format"`
	Imported []ImportedServer `json:"imported"`
	Skipped  []SkippedServer  `json:"skipped"`
}

// ImportedServer is one server added by an import.
type ImportedServer struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Warnings are problems that do not stop the import (a ${VAR} that is
	// not set here), but will stop the server from starting until fixed.
	Warnings []string `json:"warnings,omitempty"`
}

// SkippedServer is one server an import left out, and why.
type SkippedServer struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// importEntry is one server as config files in the wild write it.
type importEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

// ImportServers reads a Claude Desktop claude_desktop_config.json, a
// .mcp.json or a VS Code mcp.json and returns the servers to add to
// existing, with a report of what was imported and what was skipped and
// why (invalid name, unknown type, missing command or url, a name already
// used, the same server under another name).
//
// ${VAR} and ${VAR:-default} references are kept as written, so secrets
// stay in the environment and are expanded each time the server starts;
// lookup is used to check them now, and an unset variable without a
// default is a warning. The error is for a file that is not such a config
// at all.
func ImportServers(data []byte, existing []config.MCPServer, lookup LookupEnv) ([]config.MCPServer, ImportReport, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, ImportReport{}, fmt.Errorf("not a JSON object: %w", err)
	}
	rep := ImportReport{Imported: []ImportedServer{}, Skipped: []SkippedServer{}}
	var raw json.RawMessage
	for _, key := range []string{"mcpServers", "servers"} {
		if v, ok := top[key]; ok {
			rep.Format, raw = key, v
			break
		}
	}
	if raw == nil {
		return nil, ImportReport{}, errors.New(`no "mcpServers" (or "servers") object found; is this a claude_desktop_config.json or .mcp.json file?`)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, ImportReport{}, fmt.Errorf("%q is not an object of servers: %w", rep.Format, err)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)

	taken := slices.Clone(existing)
	var added []config.MCPServer
	for _, name := range names {
		srv, warnings, reason := importOne(name, entries[name], taken, len(existing), lookup)
		if reason != "" {
			rep.Skipped = append(rep.Skipped, SkippedServer{Name: name, Reason: reason})
			continue
		}
		taken = append(taken, srv)
		added = append(added, srv)
		rep.Imported = append(rep.Imported, ImportedServer{Name: name, Type: srv.Type, Warnings: warnings})
	}
	return added, rep, nil
}

// importOne converts one entry; reason is set when it is skipped. taken
// holds the existing servers (the first nExisting) and those imported so
// far.
func importOne(name string, raw json.RawMessage, taken []config.MCPServer, nExisting int, lookup LookupEnv) (config.MCPServer, []string, string) {
	if !ValidServerName(name) {
		return config.MCPServer{}, nil, "invalid name: use 1 to 48 letters, digits, '-' or '_', starting with a letter or digit"
	}
	var e importEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return config.MCPServer{}, nil, fmt.Sprintf("invalid entry: %q must be %s, not a JSON %s", te.Field, jsonTypeName(te.Type.String()), te.Value)
		}
		return config.MCPServer{}, nil, fmt.Sprintf("invalid entry: %v", err)
	}
	srv := config.MCPServer{Name: name, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd,
		URL: e.URL, Headers: e.Headers, Disabled: e.Disabled}
	srv.Type = normalizeType(e.Type, srv)
	if err := validateShape(srv); err != nil {
		return config.MCPServer{}, nil, err.Error()
	}
	for i, s := range taken {
		switch {
		case s.Name == name:
			return config.MCPServer{}, nil, fmt.Sprintf("a server named %q already exists", name)
		case sameServer(s, srv) && i < nExisting:
			return config.MCPServer{}, nil, fmt.Sprintf("same server as the existing %q", s.Name)
		case sameServer(s, srv):
			return config.MCPServer{}, nil, fmt.Sprintf("same server as %q, imported from the same file", s.Name)
		}
	}
	if srv.Type != TypeStdio {
		srv.Command, srv.Args, srv.Env, srv.Cwd = "", nil, nil, ""
	} else {
		srv.URL, srv.Headers = "", nil
	}
	return srv, missingVars(srv, lookup), ""
}

// jsonTypeName names a Go type of importEntry the way a config author
// thinks of it.
func jsonTypeName(goType string) string {
	switch goType {
	case "[]string":
		return "a list of strings"
	case "map[string]string":
		return "an object of strings"
	case "bool":
		return "true or false"
	}
	return "a string"
}

// sameServer reports whether two configs start the same server.
func sameServer(a, b config.MCPServer) bool {
	ta, tb := normalizeType(a.Type, a), normalizeType(b.Type, b)
	if ta != tb {
		return false
	}
	if ta == TypeStdio {
		return a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.Cwd == b.Cwd
	}
	return strings.TrimRight(a.URL, "/") == strings.TrimRight(b.URL, "/")
}

// missingVars lists the ${VAR} references of s that lookup cannot resolve.
func missingVars(s config.MCPServer, lookup LookupEnv) []string {
	var missing []string
	check := func(v string) {
		_, m := expandEnv(v, lookup)
		missing = append(missing, m...)
	}
	check(s.Command)
	check(s.URL)
	check(s.Cwd)
	for _, a := range s.Args {
		check(a)
	}
	for _, v := range s.Env {
		check(v)
	}
	for _, v := range s.Headers {
		check(v)
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	var out []string
	for _, m := range missing {
		out = append(out, fmt.Sprintf("uses ${%s}, which is not set here; the server will not start until it is", m))
	}
	return out
}

// ImportFile imports the servers of the config file at path into the
// settings store, in one update, and reports what it did. Only a file that
// cannot be read or parsed, or a failed save, is an error; skipped servers
// are in the report.
func ImportFile(store *config.Store, path string, lookup LookupEnv) (ImportReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import %s: %w", path, err)
	}
	var rep ImportReport
	err = store.Update(func(s *config.Settings) error {
		added, r, err := ImportServers(data, s.MCPServers, lookup)
		if err != nil {
			return err
		}
		rep = r
		s.MCPServers = append(s.MCPServers, added...)
		return nil
	})
	if err != nil {
		return ImportReport{}, fmt.Errorf("import %s: %w", path, err)
	}
	return rep, nil
}
