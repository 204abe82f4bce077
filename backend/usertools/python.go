package usertools

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/proc"
	"tinyelf/internal/atomicfile"
)

//go:embed host.py
var hostScript []byte

// pythonLib is TinyElf's Python library, put on every Python tool's path
// beside host.py: tinyelf_tool and core.tools._base, the compatibility
// module tools written for the seed's layout import.
//
//go:embed all:pylib
var pythonLib embed.FS

// DefaultImportTimeout bounds how long importing one module to read its
// schemas may take.
const DefaultImportTimeout = 10 * time.Second

// hostStartAllowance is how long the host may take to start before it
// reports its first module.
const hostStartAllowance = 30 * time.Second

// maxSchemaLine bounds one module's schema record.
const maxSchemaLine = 4 << 20

// pyHost runs Python tools through host.py, written once into the cache.
type pyHost struct {
	script   string // host.py's path
	pycache  string // where imported tools' bytecode goes, out of the tool folders
	timeout  time.Duration
	progName string // the interpreter's name, looked up on the tool's PATH
	children *proc.Children
}

// newPyHost writes host.py and its library (host-<hash>.lib, which host.py
// puts on the path) into cacheDir when their content changed, and returns
// the host.
func newPyHost(cacheDir, python string, importTimeout time.Duration, children *proc.Children) (*pyHost, error) {
	files := map[string][]byte{}
	h := sha256.New()
	h.Write(hostScript)
	err := fs.WalkDir(pythonLib, "pylib", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "__pycache__") {
			return err
		}
		b, err := pythonLib.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "pylib/")
		files[rel] = b
		fmt.Fprintf(h, "\x00%s\x00%d\x00", rel, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the Python tool library: %w", err)
	}
	base := filepath.Join(cacheDir, "host-"+hex.EncodeToString(h.Sum(nil)[:6]))
	script := base + ".py"
	write := func(path string, b []byte) error {
		if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, b) {
			return nil
		}
		if err := atomicfile.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("write the Python tool host: %w", err)
		}
		return nil
	}
	// The library first: a host whose library is missing would run tools
	// without it.
	for rel, b := range files {
		if err := write(filepath.Join(base+".lib", filepath.FromSlash(rel)), b); err != nil {
			return nil, err
		}
	}
	if err := write(script, hostScript); err != nil {
		return nil, err
	}
	if importTimeout <= 0 {
		importTimeout = DefaultImportTimeout
	}
	if python == "" {
		python = "python3"
	}
	return &pyHost{script: script, pycache: filepath.Join(cacheDir, "pycache"), timeout: importTimeout, progName: python, children: children}, nil
}

// interpreter finds python3 on the tool environment's PATH.
func (h *pyHost) interpreter(env []string) (string, error) {
	p, err := lookPath(h.progName, envValue(env, "PATH"))
	if err != nil {
		return "", fmt.Errorf("%s was not found on PATH, so Python tools cannot run: install Python 3 (or put it on PATH) and refresh the tools", h.progName)
	}
	return p, nil
}

// argv is the command line of one host run.
func (h *pyHost) argv(python string, mode string, extra ...string) []string {
	// -E: no PYTHON* variables from the user's shell change how the host
	// runs; utf8 mode: JSON and text are UTF-8 whatever the locale.
	out := []string{python, "-E", "-X", "utf8", "-X", "pycache_prefix=" + h.pycache, h.script, mode}
	return append(out, extra...)
}

// pyModule is one module to scan.
type pyModule struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// pyModuleInfo is what the host reports about a module it imported.
type pyModuleInfo struct {
	Name        string          `json:"name"`
	Schemas     json.RawMessage `json:"schemas"`
	HasSchemas  bool            `json:"has_schemas"`
	Profile     json.RawMessage `json:"profile"`
	Credentials json.RawMessage `json:"credentials"`
	// CredentialCalls are the get_credential(...) (and env-style) calls of
	// its code with literal arguments; DynamicCredentials counts those
	// whose names are only known when they run.
	CredentialCalls    []credentialCall `json:"credential_calls"`
	DynamicCredentials int              `json:"dynamic_credentials"`
	Dispatch           bool             `json:"dispatch"`
	CLI                bool             `json:"cli"`
	Functions          []string         `json:"functions"`
	Doc                string           `json:"doc"`
	Error              string           `json:"error"`
	Traceback          string           `json:"traceback"`
}

// scan imports modules in as few host processes as it can and returns
// what each declares. A module that hangs, or takes the host down, gets an
// error of its own, and the scan goes on with the rest in a new host.
func (h *pyHost) scan(ctx context.Context, env []string, mods []pyModule) map[string]pyModuleInfo {
	out := make(map[string]pyModuleInfo, len(mods))
	python, err := h.interpreter(env)
	if err != nil {
		for _, m := range mods {
			out[m.Name] = pyModuleInfo{Name: m.Name, Error: err.Error()}
		}
		return out
	}
	pending := mods
	for len(pending) > 0 && ctx.Err() == nil {
		got, stuck, reason := h.scanOnce(ctx, python, env, pending)
		for _, info := range got {
			out[info.Name] = info
		}
		switch {
		case stuck != "":
			out[stuck] = pyModuleInfo{Name: stuck, Error: reason}
		case len(got) == 0:
			// The host made no progress at all: every module left shares
			// its failure.
			for _, m := range pending {
				out[m.Name] = pyModuleInfo{Name: m.Name, Error: reason}
			}
		}
		rest := pending[:0:0]
		for _, m := range pending {
			if _, ok := out[m.Name]; !ok {
				rest = append(rest, m)
			}
		}
		pending = rest
	}
	for _, m := range pending {
		out[m.Name] = pyModuleInfo{Name: m.Name, Error: "the scan was cancelled"}
	}
	return out
}

// scanOnce runs one host over mods. It returns the records it got, and,
// when the host stopped early, the module it was importing and why.
func (h *pyHost) scanOnce(ctx context.Context, python string, env []string, mods []pyModule) (got []pyModuleInfo, stuck, reason string) {
	req, _ := json.Marshal(map[string]any{"modules": mods, "timeout": h.timeout.Seconds()})
	cmd := h.children.Command(python, h.argv(python, "schemas")[1:]...)
	cmd.NoInherit, cmd.Named = true, env // built whole, as for a call
	cmd.Dir = filepath.Dir(mods[0].Path)
	cmd.Stdin = bytes.NewReader(req)
	stderr := &tailWriter{limit: stderrTailBytes}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err.Error()
	}
	cmd.WaitDelay = 2 * time.Second
	child, err := cmd.Start()
	if err != nil {
		return nil, "", fmt.Sprintf("cannot start %s: %v", python, err)
	}
	type line struct {
		b   []byte
		err error
	}
	lines := make(chan line)
	stop := make(chan struct{})
	waited := false
	wait := func() {
		if !waited {
			waited = true
			_ = cmd.Wait()
			child.Exited()
		}
	}
	defer func() {
		proc.SignalGroup(cmd.Process, true)
		close(stop)
		wait()
	}()
	go func() {
		defer close(lines)
		rd := bufio.NewReaderSize(stdout, 64<<10)
		for {
			b, err := readLine(rd, maxSchemaLine)
			select {
			case lines <- line{b, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// The interpreter's own start-up is not the module's fault, and a
	// loaded machine can make it slow: it gets its own allowance.
	watchdog := time.NewTimer(hostStartAllowance + h.timeout)
	defer watchdog.Stop()
	current := ""
	for {
		select {
		case <-ctx.Done():
			return got, "", "the scan was cancelled"
		case <-watchdog.C:
			proc.SignalGroup(cmd.Process, true)
			if current == "" {
				return got, "", "the Python tool host did not answer"
			}
			return got, current, fmt.Sprintf("importing it did not finish within %s (does it wait for something at import time?)", h.timeout)
		case l, ok := <-lines:
			if !ok || l.err != nil {
				if l.err != nil && errors.Is(l.err, errLineTooLong) {
					proc.SignalGroup(cmd.Process, true)
					return got, current, "its schemas are larger than 4 MB"
				}
				wait()
				why := hostExit(cmd.Cmd, stderr)
				if current != "" {
					return got, current, "importing it ended the Python process (" + why + ")"
				}
				return got, "", "the Python tool host failed (" + why + ")"
			}
			var rec struct {
				Event string `json:"event"`
				pyModuleInfo
			}
			if json.Unmarshal(l.b, &rec) != nil {
				continue
			}
			switch rec.Event {
			case "start":
				current = rec.Name
			case "done":
				got = append(got, rec.pyModuleInfo)
				current = ""
				if len(got) == len(mods) {
					wait()
					return got, "", ""
				}
			}
			watchdog.Reset(h.timeout + 2*time.Second)
		}
	}
}

// hostExit describes how a host process ended, with the end of its stderr.
func hostExit(cmd *exec.Cmd, stderr *tailWriter) string {
	why := "it exited"
	if ps := cmd.ProcessState; ps != nil {
		why = "exit status " + fmt.Sprint(ps.ExitCode())
		if sig := proc.ExitSignal(ps); sig != "" {
			why = "killed by " + sig
		}
	}
	if tail := strings.TrimSpace(lastLines(stderr.String(), 8)); tail != "" {
		why += ": " + tail
	}
	return why
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes.
func readLine(rd *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for {
		b, err := rd.ReadSlice('\n')
		if len(out)+len(b) > max {
			return nil, errLineTooLong
		}
		out = append(out, b...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && len(out) > 0 {
				return bytes.TrimRight(out, "\n"), nil
			}
			return nil, err
		}
		return bytes.TrimRight(out, "\n"), nil
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// pythonDefinition builds a Definition from the host's record.
func pythonDefinition(m pyModule, origin Origin, info pyModuleInfo) *Definition {
	d := &Definition{Name: m.Name, Kind: KindPython, Origin: origin, Path: m.Path, Dir: filepath.Dir(m.Path), Description: info.Doc}
	if info.Error != "" {
		msg := info.Error
		if tb := strings.TrimSpace(info.Traceback); tb != "" && !strings.HasPrefix(msg, "syntax error") {
			msg += "\n" + lastLines(tb, 6)
		}
		d.Errors = append(d.Errors, msg)
		return d
	}
	if !info.HasSchemas {
		d.Errors = append(d.Errors, "it has no get_tool_schemas(): define one returning the schemas of its actions")
		return d
	}
	actions, errs := buildActions(m.Name, info.Schemas, info.Profile)
	d.Errors = append(d.Errors, errs...)
	if len(info.Credentials) > 0 && !isNull(info.Credentials) {
		if err := json.Unmarshal(info.Credentials, &d.Credentials); err != nil {
			d.Errors = append(d.Errors, "CREDENTIALS must be a list of variable names: "+err.Error())
		}
	}
	d.CodeCredentials, d.Warnings = codeCredentials(info, d.Warnings)
	if !info.Dispatch {
		var kept []Action
		for _, a := range actions {
			if slices.Contains(info.Functions, a.Schema) {
				kept = append(kept, a)
			} else {
				d.Errors = append(d.Errors, fmt.Sprintf("schema %s has no handler: define dispatch(name, args) or a function named %s", a.Schema, a.Schema))
			}
		}
		actions = kept
	}
	d.Actions = actions
	d.HasCLI = info.CLI
	return d
}

// credentialCall is one credential a module's code asks for (host.py's
// _credential_calls): get_credential(credential, tool, key_name, env_var)
// sets Credential, Key and maybe Env; resolve_env_style_credential and
// get_env_or_fail set only Env.
type credentialCall struct {
	Credential string `json:"credential"`
	Key        string `json:"key"`
	Env        string `json:"env"`
}

// maxCodeCredentials bounds the credentials read from one module's code.
const maxCodeCredentials = 32

// codeCredentials turns the credential calls the host found in a module's
// code into specs, warning about those TinyElf cannot resolve in advance.
func codeCredentials(info pyModuleInfo, warnings []string) ([]CredentialSpec, []string) {
	var out []CredentialSpec
	var bad []string
	for _, c := range info.CredentialCalls {
		spec := CredentialSpec{Credential: c.Credential, Key: c.Key, Env: c.Env, Code: true}
		if spec.Key == "api_key" {
			spec.Key = ""
		}
		if spec.Env == "" && envNamePattern.MatchString(spec.Credential) {
			spec.Env = spec.Credential // get_credential(name) falls back to the variable of that name
		}
		switch {
		case spec.Env != "" && !envNamePattern.MatchString(spec.Env):
			bad = append(bad, fmt.Sprintf("%q is not a valid environment variable name", spec.Env))
			continue
		case len(spec.Credential) > 128 || strings.ContainsAny(spec.Credential, "\x00\n"):
			bad = append(bad, fmt.Sprintf("%.40q… is not a credential name", spec.Credential))
			continue
		case spec.Env == "" && spec.Credential == "":
			continue
		}
		if len(out) == maxCodeCredentials {
			bad = append(bad, fmt.Sprintf("only the first %d credentials its code names are passed in", maxCodeCredentials))
			break
		}
		out = append(out, spec)
	}
	if len(bad) > 0 {
		warnings = append(warnings, "some credentials its code asks for cannot be passed in: "+strings.Join(bad, "; "))
	}
	if info.DynamicCredentials > 0 {
		warnings = append(warnings, fmt.Sprintf("its code asks for %d credential(s) by a name only known when it runs; "+
			"TinyElf passes a tool only the credentials it can see in advance, so declare those in CREDENTIALS "+
			"(for example CREDENTIALS = [{\"env\": \"MYAPI_KEY\", \"credential\": \"myapi\"}])", info.DynamicCredentials))
	}
	return out, warnings
}
