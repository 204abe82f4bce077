package usertools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Kind is the form a user tool takes on disk.
type Kind string

// The two forms of a user tool.
const (
	// KindPython is a Python module in seed 002's format (<name>.py).
	KindPython Kind = "python"
	// KindExecutable is any program described by a <name>.tool.json
	// manifest, speaking JSON on stdin and stdout.
	KindExecutable Kind = "executable"
)

// Origin says which folder a user tool comes from.
type Origin string

// The folders user tools come from.
const (
	// OriginCommon is <data dir>/common_tools/, shared by every agent.
	OriginCommon Origin = "common"
	// OriginPersonal is <data dir>/agents/<agent>/tools/.
	OriginPersonal Origin = "personal"
)

// DefaultExpectedSeconds is the timeout of an action whose profile does not
// set expected_seconds.
const DefaultExpectedSeconds = 60

// maxExpectedSeconds bounds expected_seconds (a day), so a typo cannot
// make a call unkillable in practice.
const maxExpectedSeconds = 24 * 60 * 60

// Profile is one action's EXECUTION_PROFILE entry.
type Profile struct {
	// ExpectedSeconds is the call's timeout; 0 means DefaultExpectedSeconds.
	ExpectedSeconds float64 `json:"expected_seconds,omitempty"`
	// BackgroundEligible lets a call be submitted as a background task.
	BackgroundEligible bool `json:"background_eligible,omitempty"`
	// Gated actions run only with an explicit {tool}_{action} entry in the
	// agent's permissions, in every permission mode.
	Gated bool `json:"gated,omitempty"`
	// ReadOnly actions change nothing: plan mode keeps them, and they run
	// without asking — unless the agent may write the tool's folder
	// (tool_creation), since it could then declare its own code read-only.
	// Every other action asks outside auto mode.
	ReadOnly bool `json:"read_only,omitempty"`
	// Credentials are extra environment variables this action needs.
	Credentials []CredentialSpec `json:"credentials,omitempty"`
}

// Timeout returns the call's deadline.
func (p Profile) Timeout() time.Duration {
	s := p.ExpectedSeconds
	if s <= 0 {
		s = DefaultExpectedSeconds
	}
	return time.Duration(s * float64(time.Second))
}

// CredentialSpec names one credential a tool reads from its environment.
// In a module or manifest it is either the variable's name ("MYAPI_KEY") or
// an object {"env": "MYAPI_KEY", "credential": "myapi", "key": "api_key"},
// the arguments of the seed's get_credential.
type CredentialSpec struct {
	// Env is the environment variable the tool reads.
	Env string `json:"env"`
	// Credential is the name under Settings credentials; empty means Env.
	Credential string `json:"credential,omitempty"`
	// Key picks one of the credential's keys; empty means its API key.
	Key string `json:"key,omitempty"`
	// Code marks a credential the tool's code asks for by name — a
	// get_credential(...) call with its arguments written out — rather than
	// declares: it is resolved by its credential name first, as the seed's
	// get_credential does, and Env may be empty (a Settings credential
	// only).
	Code bool `json:"code,omitempty"`
}

// settingsName is the credential's name under Settings credentials.
func (c CredentialSpec) settingsName() string {
	if c.Credential != "" {
		return c.Credential
	}
	return c.Env
}

// keyName is the credential's key, "api_key" by default.
func (c CredentialSpec) keyName() string {
	if c.Key != "" {
		return c.Key
	}
	return "api_key"
}

// describe names the credential for the user: where they can set it.
func (c CredentialSpec) describe() string {
	if !c.Code {
		return c.Env
	}
	name := "credentials." + c.settingsName()
	if c.keyName() != "api_key" {
		name += ".keys." + c.keyName()
	}
	if c.Env != "" {
		name += " (or " + c.Env + ")"
	}
	return name
}

// UnmarshalJSON accepts the string and the object form.
func (c *CredentialSpec) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*c = CredentialSpec{Env: s}
	} else {
		type plain CredentialSpec
		var p plain
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("a credential is a variable name or {\"env\", \"credential\", \"key\"}")
		}
		*c = CredentialSpec(p)
	}
	if !envNamePattern.MatchString(c.Env) {
		return fmt.Errorf("credential variable %q is not a valid environment variable name", c.Env)
	}
	return nil
}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// Action is one schema of a user tool, which the model calls by its schema
// name ({tool}_{action}) or through use_tool(tool_name, action).
type Action struct {
	// Schema is the schema name, the direct tool's name.
	Schema string `json:"schema"`
	// Name is the action: Schema without the "{tool}_" prefix (the whole
	// schema name when it lacks the prefix).
	Name        string `json:"action"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// Parameters is the normalized object schema of the arguments.
	Parameters json.RawMessage `json:"parameters"`
	Profile    Profile         `json:"profile"`
}

// Definition is one user tool as discovered: its form, folder, actions and
// what went wrong loading it. A Definition is immutable once discovery
// returns it.
type Definition struct {
	Name   string `json:"name"`
	Kind   Kind   `json:"kind"`
	Origin Origin `json:"origin"`
	// Path is the module (.py) or the manifest (.tool.json).
	Path string `json:"path"`
	// Dir is the folder Path is in.
	Dir         string   `json:"dir"`
	Description string   `json:"description,omitempty"`
	Actions     []Action `json:"actions"`
	// Credentials apply to every action.
	Credentials []CredentialSpec `json:"credentials,omitempty"`
	// CodeCredentials are the credentials the tool's code asks for by name
	// (get_credential calls with literal arguments, found when it is
	// scanned); they apply to every action.
	CodeCredentials []CredentialSpec `json:"codeCredentials,omitempty"`
	// Command is the executable form's argv; relative paths in it are
	// relative to Dir.
	Command []string `json:"command,omitempty"`
	// CLI is the executable form's command-line argv (the manifest's "cli");
	// a Python tool has a CLI when it defines cli_main.
	CLI    []string `json:"cli,omitempty"`
	HasCLI bool     `json:"hasCli"`
	// Errors are problems that kept the tool, or some of its actions, from
	// loading; Warnings are problems it loaded with.
	Errors   []string `json:"errors,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Loaded reports whether the tool has actions to call.
func (d *Definition) Loaded() bool { return len(d.Actions) > 0 }

// Action returns the action by its name or its schema name.
func (d *Definition) Action(name string) (Action, bool) {
	for _, a := range d.Actions {
		if a.Name == name || a.Schema == name {
			return a, true
		}
	}
	return Action{}, false
}

// credentialsFor returns the credentials a call of a needs, without
// duplicates: the declared ones (one per variable), then those the code
// asks for by name (one per credential, key and variable).
func (d *Definition) credentialsFor(a Action) []CredentialSpec {
	var out []CredentialSpec
	seen := map[string]bool{}
	for _, c := range append(append([]CredentialSpec{}, d.Credentials...), a.Profile.Credentials...) {
		if !seen[c.Env] {
			seen[c.Env] = true
			out = append(out, c)
		}
	}
	type triple struct{ name, key, env string }
	code := map[triple]bool{}
	for _, c := range out {
		code[triple{c.settingsName(), c.keyName(), c.Env}] = true
	}
	for _, c := range d.CodeCredentials {
		k := triple{c.settingsName(), c.keyName(), c.Env}
		if !code[k] {
			code[k] = true
			out = append(out, c)
		}
	}
	return out
}

// allCredentials returns the credentials of every action of d (for its
// command line and Settings → Tools).
func (d *Definition) allCredentials() []CredentialSpec {
	merged := Action{}
	for _, a := range d.Actions {
		merged.Profile.Credentials = append(merged.Profile.Credentials, a.Profile.Credentials...)
	}
	return d.credentialsFor(merged)
}

// toolNamePattern is the rule for tool (file) names: snake case, as the
// seed's checklist asks, short enough to leave room for the action in a
// 64-character schema name.
var toolNamePattern = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// schemaNamePattern is the function-calling name rule of OpenAI and
// Anthropic.
var schemaNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// rawSchema is a schema as a module or manifest writes it.
type rawSchema struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptyObjectSchema is the parameters of an action that takes none.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// buildActions turns the schemas and profile a tool declares into actions.
// A bad schema is an error for that schema only; the rest still load.
func buildActions(tool string, schemas json.RawMessage, profile json.RawMessage) ([]Action, []string) {
	var errs []string
	profiles := map[string]Profile{}
	if len(profile) > 0 && !isNull(profile) {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(profile, &raw); err != nil {
			errs = append(errs, "EXECUTION_PROFILE must map each action to its settings, like {\"send\": {\"gated\": true}}")
		}
		for action, r := range raw {
			var p Profile
			if err := json.Unmarshal(r, &p); err != nil {
				errs = append(errs, fmt.Sprintf("EXECUTION_PROFILE[%q]: %v", action, err))
				continue
			}
			if p.ExpectedSeconds < 0 || p.ExpectedSeconds > maxExpectedSeconds || math.IsNaN(p.ExpectedSeconds) {
				errs = append(errs, fmt.Sprintf("EXECUTION_PROFILE[%q].expected_seconds must be between 0 and %d", action, maxExpectedSeconds))
				p.ExpectedSeconds = 0
			}
			profiles[action] = p
		}
	}
	if len(schemas) == 0 || isNull(schemas) {
		return nil, append(errs, "it declares no schemas: define get_tool_schemas() (or \"schemas\" in the manifest) returning at least one")
	}
	var list []json.RawMessage
	if err := json.Unmarshal(schemas, &list); err != nil {
		return nil, append(errs, "the schemas must be a list of objects with name, description and input_schema (or parameters)")
	}
	var out []Action
	seen := map[string]bool{}
	for i, r := range list {
		var s rawSchema
		if err := json.Unmarshal(r, &s); err != nil {
			errs = append(errs, fmt.Sprintf("schema %d is not an object with name, description and input_schema", i+1))
			continue
		}
		if !schemaNamePattern.MatchString(s.Name) {
			errs = append(errs, fmt.Sprintf("schema %d: name %q must be 1-64 letters, digits, _ or - ({tool}_{action}, like %s_run)", i+1, s.Name, tool))
			continue
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Sprintf("schema %s is declared twice", s.Name))
			continue
		}
		params := s.Parameters
		if len(params) == 0 || isNull(params) {
			params = s.InputSchema
		}
		norm, err := normalizeParameters(params)
		if err != nil {
			errs = append(errs, fmt.Sprintf("schema %s: %v", s.Name, err))
			continue
		}
		seen[s.Name] = true
		action, ok := strings.CutPrefix(s.Name, tool+"_")
		if !ok || action == "" {
			action = s.Name
		}
		p, ok := profiles[action]
		if !ok {
			p = profiles[s.Name]
		}
		out = append(out, Action{
			Schema: s.Name, Name: action, Title: s.Title, Description: strings.TrimSpace(s.Description),
			Parameters: norm, Profile: p,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Schema < out[j].Schema })
	return out, errs
}

// normalizeParameters checks that raw is an object JSON Schema the
// validator understands and returns it compacted; a missing schema means
// no parameters.
func normalizeParameters(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || isNull(raw) {
		return emptyObjectSchema, nil
	}
	var probe map[string]any
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("its parameters are not a JSON object")
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("its parameters are not valid JSON Schema: %v", err)
	}
	if (s.Type != "" && s.Type != "object") || len(s.Types) > 0 {
		return nil, fmt.Errorf("its parameters must be a schema of type \"object\"")
	}
	c := s
	c.Schema = ""
	if _, err := c.Resolve(nil); err != nil {
		return nil, fmt.Errorf("its parameters are not valid JSON Schema: %v", err)
	}
	if err := checkMetaSchema(probe); err != nil {
		return nil, fmt.Errorf("its parameters are not valid JSON Schema: %v", err)
	}
	if s.Type == "" {
		probe["type"] = "object"
		b, err := json.Marshal(probe)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// withSubmit adds the "submit" parameter to a background-eligible action's
// schema; a schema that already has one keeps it.
func withSubmit(params json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
	}
	if _, ok := props["submit"]; ok {
		return params
	}
	props["submit"] = map[string]any{
		"type":        "boolean",
		"description": "Run this call as a background task: the answer comes at once with a task ID, the result later (tool_tasks), with a desktop notification when it finishes.",
	}
	m["properties"] = props
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }
