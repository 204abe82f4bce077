package usertools

import (
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Listing is an agent's user tools as Settings → Tools shows them.
type Listing struct {
	Agent       string     `json:"agent"`
	CommonDir   string     `json:"commonDir"`
	PersonalDir string     `json:"personalDir"`
	AgentDir    string     `json:"agentDir"`
	ScannedAt   time.Time  `json:"scannedAt"`
	Tools       []ToolView `json:"tools"`
	// Skipped are tools left out (a core name); Problems are every load
	// error of the last scan, including those of tools not listed.
	Skipped  []Problem `json:"skipped"`
	Problems []Problem `json:"problems"`
	// Permissions is the agent's permissions file; PermissionsError says
	// why it could not be read (gated actions and tool writes are then
	// refused).
	Permissions      Permissions `json:"permissions"`
	PermissionsError string      `json:"permissionsError,omitempty"`
	// VaultNames are the variables the vault holds (never their values).
	VaultNames []string `json:"vaultNames"`
	VaultError string   `json:"vaultError,omitempty"`
}

// ToolView is one user tool in a Listing.
type ToolView struct {
	Name        string           `json:"name"`
	Kind        Kind             `json:"kind"`
	Origin      Origin           `json:"origin"`
	Path        string           `json:"path"`
	Dir         string           `json:"dir"`
	Description string           `json:"description,omitempty"`
	Overrides   bool             `json:"overrides,omitempty"`
	HasCLI      bool             `json:"hasCli"`
	Actions     []ActionView     `json:"actions"`
	Credentials []CredentialView `json:"credentials"`
	Errors      []string         `json:"errors"`
	Warnings    []string         `json:"warnings"`
}

// ActionView is one action of a ToolView.
type ActionView struct {
	Schema      string          `json:"schema"`
	Action      string          `json:"action"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	ReadOnly    bool            `json:"readOnly"`
	// Asks is set when a call waits for the user's approval outside auto
	// mode: every action that is not read-only, and read-only ones of a
	// folder the agent may write.
	Asks            bool    `json:"asks"`
	Gated           bool    `json:"gated"`
	Allowed         bool    `json:"allowed"` // a gated action with its permission entry
	Background      bool    `json:"background"`
	ExpectedSeconds float64 `json:"expectedSeconds"`
}

// CredentialView says where a declared credential would come from; the
// value is never included.
type CredentialView struct {
	// Env is the variable; Credential and Key name the Settings credential
	// it is looked up as when it differs. Code marks a credential the
	// tool's code asks for by name rather than declares.
	Env        string   `json:"env"`
	Credential string   `json:"credential,omitempty"`
	Key        string   `json:"key,omitempty"`
	Code       bool     `json:"code,omitempty"`
	From       string   `json:"from"` // "" when not found
	Problems   []string `json:"problems,omitempty"`
}

// List describes an agent's user tools as last scanned (scanning them if
// this is the first time the agent is seen).
func (s *Service) List(ctx context.Context, agent string) Listing {
	if agent == "" {
		agent = "default"
	}
	set := s.set(ctx, agent)
	l := Listing{
		Agent: agent, CommonDir: s.CommonDir(), ScannedAt: set.report.At,
		Tools: []ToolView{}, Skipped: nonNil(set.report.Skipped), Problems: nonNil(set.report.Errors), VaultNames: []string{},
	}
	l.AgentDir, _ = s.AgentDir(agent)
	l.PersonalDir, _ = s.PersonalDir(agent)
	perms, err := s.Permissions(agent)
	if err != nil {
		l.PermissionsError = err.Error()
	}
	l.Permissions = perms
	if names, err := s.vault.Names(); err != nil {
		l.VaultError = err.Error()
	} else {
		l.VaultNames = names
	}
	for _, d := range set.defs {
		v := ToolView{
			Name: d.Name, Kind: d.Kind, Origin: d.Origin, Path: d.Path, Dir: d.Dir, Description: d.Description,
			Overrides: d.Origin == OriginPersonal && slices.Contains(set.report.Overrides, d.Name),
			HasCLI:    d.HasCLI, Actions: []ActionView{}, Credentials: []CredentialView{},
			Errors: nonNil(d.Errors), Warnings: nonNil(d.Warnings),
		}
		for _, a := range d.Actions {
			v.Actions = append(v.Actions, ActionView{
				Schema: a.Schema, Action: a.Name, Description: a.Description, Parameters: a.Parameters,
				ReadOnly: a.Profile.ReadOnly, Asks: !a.Profile.ReadOnly || set.writable[d.Origin], Gated: a.Profile.Gated, Allowed: a.Profile.Gated && perms.Allows(a.Schema),
				Background: a.Profile.BackgroundEligible, ExpectedSeconds: a.Profile.Timeout().Seconds(),
			})
		}
		for _, c := range d.allCredentials() {
			_, from, problems := s.creds.Resolve(agent, c)
			v.Credentials = append(v.Credentials, CredentialView{Env: c.Env, Credential: c.Credential, Key: c.Key, Code: c.Code, From: from, Problems: problems})
		}
		l.Tools = append(l.Tools, v)
	}
	return l
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
