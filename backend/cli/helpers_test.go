package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"tinyelf/backend/api"
)

// cliEnv isolates a CLI test: its own data folder, no provider variables
// from the machine, no notification bus. Tests that use it cannot run in
// parallel (they set the environment).
func cliEnv(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("TINYELF_HOME", home)
	for _, k := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "TINYELF_PROVIDER", "TINYELF_MODEL", "TINYELF_BASE_URL", api.EnvBridgeToken} {
		t.Setenv(k, "")
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(home, "no-bus"))
	return home
}

// runCLI runs one command line and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, &out, &errOut, Options{Version: "test"})
	return code, out.String(), errOut.String()
}

// goTool returns the go command that runs this test.
func goTool() string {
	bin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(bin); err != nil {
		return "go"
	}
	return bin
}

// buildOnce builds a Go command once per test binary.
var builds sync.Map // import path → func() (string, error)

func build(t *testing.T, pkg string) string {
	t.Helper()
	f, _ := builds.LoadOrStore(pkg, sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "tinyelf-cli-test-")
		if err != nil {
			return "", err
		}
		bin := filepath.Join(dir, filepath.Base(pkg))
		if out, err := exec.Command(goTool(), "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			return "", &buildError{pkg, err, out}
		}
		return bin, nil
	}))
	bin, err := f.(func() (string, error))()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

type buildError struct {
	pkg string
	err error
	out []byte
}

func (e *buildError) Error() string {
	return "build " + e.pkg + ": " + e.err.Error() + "\n" + string(e.out)
}

// buildFakeMCPServer builds backend/mcp's fake stdio MCP server.
func buildFakeMCPServer(t *testing.T) string {
	return build(t, "tinyelf/backend/mcp/testdata/fakeserver")
}

// TestMain removes what build left in the temporary folder.
func TestMain(m *testing.M) {
	code := m.Run()
	builds.Range(func(_, f any) bool {
		if bin, err := f.(func() (string, error))(); err == nil {
			os.RemoveAll(filepath.Dir(bin))
		}
		return true
	})
	os.Exit(code)
}

// checkRun runs the CLI with args and checks its exit code and that stdout
// and stderr contain each of the wanted strings; it returns both outputs.
func checkRun(t *testing.T, args []string, code int, stdout, stderr []string) (string, string) {
	t.Helper()
	got, out, errOut := runCLI(t, args...)
	if got != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", got, code, out, errOut)
	}
	for _, w := range stdout {
		if !strings.Contains(out, w) {
			t.Errorf("stdout lacks %q:\n%s", w, out)
		}
	}
	for _, w := range stderr {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	return out, errOut
}
