package usertools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/proc"
)

// maxStdoutBytes bounds what a tool may print on stdout: its result is one
// JSON value, and the model reads at most the registry's output limit of
// it anyway. A tool that prints more is killed at once.
const maxStdoutBytes = 4 << 20

// stderrTailBytes is how much of a tool's stderr is kept: its end, where
// the traceback is.
const stderrTailBytes = 16 << 10

// processSpec is one run of a tool's process.
type processSpec struct {
	argv    []string
	dir     string
	env     []string
	stdin   []byte
	timeout time.Duration
	// maxStdout overrides maxStdoutBytes (tests); 0 keeps it.
	maxStdout int
	// children starts the process and keeps it from outliving TinyElf;
	// nil starts it in its own group and records nothing.
	children *proc.Children
}

// processResult is how a tool's process ended.
type processResult struct {
	stdout   []byte
	stderr   string // the last stderrTailBytes
	exitCode int
	signal   string
	timedOut bool
	// overflow is set when the tool printed more than the limit and was
	// killed for it.
	overflow bool
	// cancelled is set when the caller's context ended first.
	cancelled bool
	// hostLost is set when the fork server went away during the call.
	hostLost bool
	duration time.Duration
}

// runProcess runs spec in its own process group, feeding stdin and keeping
// stdout (bounded) and the end of stderr. The whole group is killed at the
// timeout, when stdout overflows, or when ctx ends. An error means the
// process could not be started at all.
func runProcess(ctx context.Context, spec processSpec) (processResult, error) {
	if len(spec.argv) == 0 {
		return processResult{}, errors.New("no command to run")
	}
	limit := spec.maxStdout
	if limit <= 0 {
		limit = maxStdoutBytes
	}
	runCtx, cancel := context.WithTimeout(ctx, spec.timeout)
	defer cancel()
	cmd := spec.children.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Dir = spec.dir
	// The environment is built whole from an allowlist and the tool's own
	// credentials (toolEnv): nothing of TinyElf's is inherited.
	cmd.NoInherit, cmd.Named = true, spec.env
	cmd.Stdin = bytes.NewReader(spec.stdin)
	stdout := &capWriter{limit: limit, full: make(chan struct{})}
	stderr := &tailWriter{limit: stderrTailBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A grandchild that keeps the pipes open must not keep us waiting.
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	child, err := cmd.Start()
	if err != nil {
		return processResult{}, err
	}
	done := make(chan struct{})
	var res processResult
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
			return
		case <-runCtx.Done():
			if ctx.Err() != nil {
				res.cancelled = true
			} else {
				res.timedOut = true
			}
		case <-stdout.full:
			res.overflow = true
		}
		proc.SignalGroup(cmd.Process, true)
	}()
	err = cmd.Wait()
	close(done)
	wg.Wait()
	// Whatever the leader left behind in its group goes with it.
	proc.SignalGroup(cmd.Process, true)
	child.Exited()
	res.duration = time.Since(start)
	res.stdout = stdout.buf.Bytes()
	res.stderr = stderr.String()
	res.exitCode = -1
	if cmd.ProcessState != nil {
		res.exitCode = cmd.ProcessState.ExitCode()
		res.signal = proc.ExitSignal(cmd.ProcessState)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("run %s: %w", filepath.Base(spec.argv[0]), err)
	}
	return res, nil
}

// capWriter keeps the first limit bytes and signals full once when more
// come; the rest is dropped.
type capWriter struct {
	limit int
	buf   bytes.Buffer
	full  chan struct{}
	once  sync.Once
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.limit - w.buf.Len()
	if len(p) > room {
		if room > 0 {
			w.buf.Write(p[:room])
		}
		w.once.Do(func() { close(w.full) })
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

// tailWriter keeps the last limit bytes written to it.
type tailWriter struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.limit; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
		w.cut = true
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.ToValidUTF8(string(w.buf), "")
	if w.cut {
		return "…" + s
	}
	return s
}

// baseEnvKeys are the variables of TinyElf's environment a tool process
// gets: what programs need to find themselves, their locale, temporary
// files and the network. Nothing else passes, so provider API keys and
// other secrets stay out; credentials a tool declares are added one by one.
var baseEnvKeys = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
	"TZ", "TMPDIR", "TERM",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	// Windows
	"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
	"TEMP", "TMP", "PROGRAMFILES", "PROGRAMDATA",
}

// defaultPath is the PATH of a tool when TinyElf's environment has none.
func defaultPath() string {
	if runtime.GOOS == "windows" {
		return `C:\Windows\system32;C:\Windows`
	}
	return "/usr/local/bin:/usr/bin:/bin"
}

// baseEnv returns the tool environment's base, read through getenv.
func baseEnv(getenv func(string) string) []string {
	var env []string
	for _, k := range baseEnvKeys {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if getenv("PATH") == "" {
		env = append(env, "PATH="+defaultPath())
	}
	return env
}

// envValue returns a variable's value in env.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// lookPath finds a program on the given PATH (not TinyElf's own: the tool
// runs with the PATH its environment has).
func lookPath(name, path string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || (runtime.GOOS == "windows" && strings.ContainsRune(name, '/')) {
		if isExecutable(name) {
			return name, nil
		}
		return "", fmt.Errorf("%s is not an executable file", name)
	}
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{".exe", ".cmd", ".bat", ""}
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		for _, ext := range exts {
			p := filepath.Join(dir, name+ext)
			if isExecutable(p) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s was not found on PATH (%s)", name, path)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	if err != nil || st.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0
}
