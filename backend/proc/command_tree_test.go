package proc

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// processStarters are the functions and types that start a process, by
// import path: using any of them outside command.go makes a child that may
// keep TinyElf's keys, share its process group or outlive it.
var processStarters = map[string]map[string]bool{
	"os/exec":                  {"Command": true, "CommandContext": true, "Cmd": true},
	"os":                       {"StartProcess": true},
	"syscall":                  {"ForkExec": true, "StartProcess": true, "CreateProcess": true, "CreateProcessAsUser": true},
	"golang.org/x/sys/unix":    {"ForkExec": true},
	"golang.org/x/sys/windows": {"CreateProcess": true, "CreateProcessAsUser": true},
}

// childConstructor is the one file allowed to start processes.
const childConstructor = "backend/proc/command.go"

// childExceptions are the files (or folders, ending in /) that start
// processes themselves, and why that is right for them. Each must still
// start one: an exception that no longer applies is an error too.
var childExceptions = map[string]string{
	"scripts/":                                "build and smoke-test tooling run by developers and CI; it drives Xvfb, xdotool and the built binary and is never part of TinyElf",
	"internal/proctest/proctest.go":           "test helper: runs `go build` to make the binary the process tests drive",
	"backend/notify/notifytest/notifytest.go": "test helper: starts a private dbus-daemon for the notification tests",
}

// TestEveryChildGoesThroughCommand parses every non-test Go file of the
// module and fails, naming file:line, on any process started other than
// through Children.Command (command.go).
func TestEveryChildGoesThroughCommand(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	found, err := spawnSites(root)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	var bad []string
	for _, hit := range found {
		if hit.file == childConstructor {
			used[childConstructor] = true
			continue
		}
		if ex := exceptionFor(hit.file); ex != "" {
			used[ex] = true
			continue
		}
		bad = append(bad, hit.String())
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: starts a process without proc.Children.Command (the clean environment, its own group, gone with TinyElf); use it, or add an exception with the reason", b)
	}
	if !used[childConstructor] {
		t.Errorf("%s starts no process: the constructor moved, update childConstructor", childConstructor)
	}
	for ex := range childExceptions {
		if !used[ex] {
			t.Errorf("exception %s starts no process any more: remove it", ex)
		}
	}
}

// TestProcessStartsFindsEveryForm checks the finder itself on the forms a
// bypass can take: a renamed import, a dot import, a composite literal, a
// function value, os.StartProcess and syscall.ForkExec.
func TestProcessStartsFindsEveryForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(rel, src string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module x\n")
	write("a/a.go", `package a

import (
	"os"
	run "os/exec"
	"syscall"
)

func f() {
	_ = run.Command("ls")
	_ = &run.Cmd{Path: "/bin/ls"}
	start, c := run.CommandContext, new(run.Cmd)
	var typeOnly *run.Cmd
	_, _, _ = start, c, typeOnly
	_, _ = os.StartProcess("/bin/ls", nil, nil)
	_, _ = syscall.ForkExec("/bin/ls", nil, nil)
	_ = os.Getenv("x")
}
`)
	write("b/b.go", "package b\n\nimport . \"os/exec\"\n\nvar _ = LookPath\n")
	write("a/a_test.go", "package a\n\nimport \"os/exec\"\n\nvar _ = exec.Command\n")
	write("node_modules/m/m.go", "package m\n\nimport \"os/exec\"\n\nvar _ = exec.Command\n")
	write("a/testdata/t.go", "package t\n\nimport \"os/exec\"\n\nvar _ = exec.Command\n")
	found, err := spawnSites(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range found {
		got = append(got, h.String())
	}
	want := []string{
		"a/a.go:10: exec.Command", "a/a.go:11: exec.Cmd", "a/a.go:12: exec.CommandContext", "a/a.go:12: exec.Cmd",
		"a/a.go:15: os.StartProcess", "a/a.go:16: syscall.ForkExec", "b/b.go:3: dot import of os/exec",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("found:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// spawnSite is one use of a process starter.
type spawnSite struct {
	file string // slash-separated, relative to the module root
	line int
	what string
}

func (p spawnSite) String() string { return p.file + ":" + strconv.Itoa(p.line) + ": " + p.what }

// spawnSites lists the process starters used by the non-test Go files
// under root, in file and line order. Folders Go does not build (testdata,
// vendor, node_modules, hidden ones) are left out.
func spawnSites(root string) ([]spawnSite, error) {
	var out []spawnSite
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out = append(out, fileStarts(fset, filepath.ToSlash(rel), f)...)
		return nil
	})
	return out, err
}

// fileStarts lists the process starters one file uses.
func fileStarts(fset *token.FileSet, rel string, f *ast.File) []spawnSite {
	var out []spawnSite
	names := map[string]string{} // local name -> import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if processStarters[path] == nil {
			continue
		}
		local := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		switch local {
		case "_":
			continue
		case ".":
			out = append(out, spawnSite{rel, fset.Position(imp.Pos()).Line, "dot import of " + path})
			continue
		}
		names[local] = path
	}
	starter := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		path, ok := names[id.Name]
		if !ok || !processStarters[path][sel.Sel.Name] {
			return "", false
		}
		return path[strings.LastIndex(path, "/")+1:] + "." + sel.Sel.Name, true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit: // exec.Cmd{...}
			if what, ok := starter(n.Type); ok && what == "exec.Cmd" {
				out = append(out, spawnSite{rel, fset.Position(n.Pos()).Line, what})
			}
		case *ast.CallExpr: // new(exec.Cmd)
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
				if what, ok := starter(n.Args[0]); ok && what == "exec.Cmd" {
					out = append(out, spawnSite{rel, fset.Position(n.Pos()).Line, what})
				}
			}
		case *ast.SelectorExpr: // a starter called or taken as a value
			if what, ok := starter(n); ok && what != "exec.Cmd" {
				out = append(out, spawnSite{rel, fset.Position(n.Pos()).Line, what})
			}
		}
		return true
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

func exceptionFor(file string) string {
	for ex := range childExceptions {
		if file == ex || (strings.HasSuffix(ex, "/") && strings.HasPrefix(file, ex)) {
			return ex
		}
	}
	return ""
}

// moduleRoot finds the folder holding go.mod above the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}
