package usertools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ManifestSuffix ends the manifest of an executable tool.
const ManifestSuffix = ".tool.json"

// Problem is one user tool that was skipped or failed to load, as the UI
// and the report show it.
type Problem struct {
	Tool    string `json:"tool"`
	Origin  Origin `json:"origin"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Report says what one discovery found for an agent: the tools loaded,
// personal tools that replaced common ones, tools skipped (a core name, a
// name or schema taken) and tools that failed to load.
type Report struct {
	Agent     string    `json:"agent"`
	At        time.Time `json:"at"`
	Loaded    []string  `json:"loaded"`
	Overrides []string  `json:"overrides,omitempty"`
	Skipped   []Problem `json:"skipped,omitempty"`
	Errors    []Problem `json:"errors,omitempty"`
}

// Summary renders the report for the model and the log.
func (r Report) Summary() string {
	var sb strings.Builder
	if len(r.Loaded) == 0 {
		sb.WriteString("No user tools loaded.")
	} else {
		fmt.Fprintf(&sb, "%d user tools loaded: %s.", len(r.Loaded), strings.Join(r.Loaded, ", "))
	}
	for _, o := range r.Overrides {
		fmt.Fprintf(&sb, "\nPersonal %s replaces the common tool of that name.", o)
	}
	for _, line := range r.Problems() {
		sb.WriteString("\n" + line)
	}
	return sb.String()
}

// Problems renders what the discovery left out or could not load, one line
// each (the skipped tools first), for the session log; nil when nothing
// went wrong.
func (r Report) Problems() []string {
	var out []string
	for _, p := range r.Skipped {
		out = append(out, fmt.Sprintf("Skipped %s (%s, %s): %s", p.Tool, p.Origin, p.Path, p.Message))
	}
	for _, p := range r.Errors {
		if p.Tool == "" { // a folder, not a tool
			out = append(out, fmt.Sprintf("Error in the %s tools: %s", p.Origin, p.Message))
			continue
		}
		out = append(out, fmt.Sprintf("Error in %s (%s, %s): %s", p.Tool, p.Origin, p.Path, p.Message))
	}
	return out
}

// candidate is one tool file found in a folder.
type candidate struct {
	name string
	kind Kind
	path string
}

// listFolder finds the tool files of a folder: <name>.py and
// <name>.tool.json, skipping names that start with "_" or "." (the seed's
// private helpers). A missing folder has no tools.
func listFolder(dir string, origin Origin) ([]candidate, []*Definition) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []*Definition{{Name: filepath.Base(dir), Origin: origin, Path: dir, Dir: dir,
			Errors: []string{fmt.Sprintf("cannot read the folder: %v", err)}}}
	}
	var out []candidate
	var bad []*Definition
	byName := map[string]candidate{}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
			continue
		}
		var c candidate
		switch {
		case strings.HasSuffix(n, ManifestSuffix):
			c = candidate{name: strings.TrimSuffix(n, ManifestSuffix), kind: KindExecutable}
		case strings.HasSuffix(n, ".py"):
			c = candidate{name: strings.TrimSuffix(n, ".py"), kind: KindPython}
		default:
			continue
		}
		c.path = filepath.Join(dir, n)
		if st, err := os.Stat(c.path); err != nil || st.IsDir() {
			continue
		}
		if !toolNamePattern.MatchString(c.name) {
			bad = append(bad, &Definition{Name: c.name, Kind: c.kind, Origin: origin, Path: c.path, Dir: dir,
				Errors: []string{"its file name is not a valid tool name: use snake_case letters, digits and _ (like my_tool.py)"}})
			continue
		}
		if prev, ok := byName[c.name]; ok {
			bad = append(bad, &Definition{Name: c.name, Kind: c.kind, Origin: origin, Path: c.path, Dir: dir,
				Errors: []string{fmt.Sprintf("%s already defines a tool named %s in this folder; rename one of them", filepath.Base(prev.path), c.name)}})
			continue
		}
		byName[c.name] = c
		out = append(out, c)
	}
	return out, bad
}

// scanFolder discovers the tools of one folder.
func (s *Service) scanFolder(ctx context.Context, dir string, origin Origin) []*Definition {
	cands, defs := listFolder(dir, origin)
	var mods []pyModule
	for _, c := range cands {
		switch c.kind {
		case KindPython:
			mods = append(mods, pyModule{Name: c.name, Path: c.path})
		case KindExecutable:
			defs = append(defs, s.manifestDefinition(c, origin))
		}
	}
	if len(mods) > 0 {
		env := s.toolEnv("", nil, "")
		infos := s.py.scan(ctx, env, mods)
		for _, m := range mods {
			defs = append(defs, pythonDefinition(m, origin, infos[m.Name]))
		}
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// manifest is an executable tool's <name>.tool.json.
type manifest struct {
	Description string           `json:"description"`
	Command     []string         `json:"command"`
	CLI         []string         `json:"cli"`
	Schemas     json.RawMessage  `json:"schemas"`
	Profile     json.RawMessage  `json:"profile"`
	Credentials []CredentialSpec `json:"credentials"`
}

var manifestFields = map[string]bool{"description": true, "command": true, "cli": true, "schemas": true, "profile": true, "credentials": true}

// maxManifestBytes bounds a manifest file.
const maxManifestBytes = 1 << 20

func (s *Service) manifestDefinition(c candidate, origin Origin) *Definition {
	d := &Definition{Name: c.name, Kind: KindExecutable, Origin: origin, Path: c.path, Dir: filepath.Dir(c.path)}
	b, err := readCapped(c.path, maxManifestBytes)
	if err != nil {
		d.Errors = append(d.Errors, err.Error())
		return d
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		d.Errors = append(d.Errors, fmt.Sprintf("the manifest is not valid: %v", err))
		return d
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	var unknown []string
	for k := range keys {
		if !manifestFields[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the manifest has fields TinyElf does not know (ignored): %s", strings.Join(unknown, ", ")))
	}
	d.Description = strings.TrimSpace(m.Description)
	d.Credentials = m.Credentials
	d.Command = m.Command
	if len(d.Command) == 0 {
		d.Command = []string{"./" + c.name}
	}
	if err := s.checkCommand(d.Dir, d.Command); err != nil {
		d.Errors = append(d.Errors, err.Error())
		return d
	}
	if len(m.CLI) > 0 {
		if err := s.checkCommand(d.Dir, m.CLI); err != nil {
			d.Warnings = append(d.Warnings, "its cli command cannot run: "+err.Error())
		} else {
			d.CLI, d.HasCLI = m.CLI, true
		}
	}
	actions, errs := buildActions(c.name, m.Schemas, m.Profile)
	d.Actions, d.Errors = actions, append(d.Errors, errs...)
	return d
}

// checkCommand checks that a manifest's program exists: a path relative to
// the tool's folder, or a name on the tool environment's PATH.
func (s *Service) checkCommand(dir string, argv []string) error {
	_, err := s.resolveProgram(dir, argv[0])
	return err
}

// resolveProgram returns the program a manifest command names.
func (s *Service) resolveProgram(dir, prog string) (string, error) {
	if strings.TrimSpace(prog) == "" {
		return "", errors.New("the manifest's command is empty")
	}
	if strings.ContainsAny(prog, `/\`) {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if !isExecutable(p) {
			if _, err := os.Stat(p); err == nil {
				return "", fmt.Errorf("%s is not executable (chmod +x it)", p)
			}
			return "", fmt.Errorf("its command %s does not exist", p)
		}
		return p, nil
	}
	p, err := lookPath(prog, envValue(s.toolEnv("", nil, ""), "PATH"))
	if err != nil {
		return "", fmt.Errorf("its command %s was not found on PATH: install it or give its path in the manifest", prog)
	}
	return p, nil
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", filepath.Base(path), max)
	}
	return b, nil
}

// coreKey folds a name for comparing it with the core tools' names: a user
// tool "web_fetch" or "read" would be mistaken for WebFetch or Read.
func coreKey(name string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
}

// merge combines common and personal tools the seed's way ({**common,
// **personal}: personal wins on a name) and drops what would clash with a
// core tool or with another user tool's schema. Tools that failed to load
// stay in the result for the UI; a broken personal tool does not hide a
// working common one.
func merge(agent string, common, personal []*Definition, core []string) ([]*Definition, Report) {
	rep := Report{Agent: agent}
	coreSet := map[string]string{}
	for _, n := range core {
		coreSet[coreKey(n)] = n
	}
	byName := map[string]*Definition{}
	var order []string
	add := func(d *Definition) {
		if c, ok := coreSet[coreKey(d.Name)]; ok {
			rep.Skipped = append(rep.Skipped, Problem{Tool: d.Name, Origin: d.Origin, Path: d.Path,
				Message: fmt.Sprintf("its name is taken by the core tool %s; rename the file", c)})
			return
		}
		prev, ok := byName[d.Name]
		if !ok {
			order = append(order, d.Name)
			byName[d.Name] = d
			return
		}
		if !d.Loaded() && prev.Loaded() {
			rep.Errors = append(rep.Errors, Problem{Tool: d.Name, Origin: d.Origin, Path: d.Path,
				Message: "it failed to load, so the common tool of that name is used: " + strings.Join(d.Errors, "; ")})
			return
		}
		rep.Overrides = append(rep.Overrides, d.Name)
		byName[d.Name] = d
	}
	for _, d := range common {
		add(d)
	}
	for _, d := range personal {
		add(d)
	}
	sort.Strings(order)
	var out []*Definition
	schemaOwner := map[string]string{}
	for _, n := range order {
		d, ok := byName[n]
		if !ok {
			continue
		}
		var kept []Action
		var errs []string
		for _, a := range d.Actions {
			if c, ok := coreSet[coreKey(a.Schema)]; ok {
				errs = append(errs, fmt.Sprintf("schema %s is skipped: its name is taken by the core tool %s", a.Schema, c))
				continue
			}
			if owner, ok := schemaOwner[a.Schema]; ok {
				errs = append(errs, fmt.Sprintf("schema %s is skipped: the tool %s already offers it", a.Schema, owner))
				continue
			}
			schemaOwner[a.Schema] = d.Name
			kept = append(kept, a)
		}
		if len(errs) > 0 {
			c := *d
			c.Actions = kept
			c.Errors = append(append([]string{}, d.Errors...), errs...)
			d = &c
		}
		out = append(out, d)
		if d.Loaded() {
			rep.Loaded = append(rep.Loaded, d.Name)
		}
		if len(d.Errors) > 0 {
			rep.Errors = append(rep.Errors, Problem{Tool: d.Name, Origin: d.Origin, Path: d.Path, Message: strings.Join(d.Errors, "; ")})
		}
	}
	return out, rep
}
