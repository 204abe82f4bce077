package guard

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
	"tinyelf/backend/shell/guard/walk"
)

// realRunCommands are destructive-looking commands the guard lets run.
// TestShellGuardRealRun runs each of them for real in a scratch home folder
// and checks that nothing outside the workspace was touched.
var realRunCommands = []string{
	`rm -rf ./build`,
	`rm -rf build dist node_modules`,
	`rm -rf ~/proj/build`,
	`cd ~/proj && rm -rf build`,
	`find . -name '*.o' -delete`,
	`find . -name '*.o' -print0 | xargs -0 rm -f`,
	`find . -name '*.tmp' -exec rm {} +`,
	`find . -type d -name build -exec rm -rf {} +`,
	`for f in *.tmp; do rm -f "$f"; done`,
	`cd build && rm -rf *`,
	`x=build; rm -rf "$x"`,
	`d=$(mktemp -d); touch "$d/f"; rm -rf "$d"`,
	`xargs rm -rf < list.txt`,
	`echo build | xargs rm -rf`,
	`printf 'dist\n' | xargs -I{} rm -rf {}`,
	`rsync -a --delete src/ mirror/ 2>/dev/null || cp -r src mirror`,
	`chmod -R u+w .`,
	`if [ -d build ]; then rm -rf build; fi`,
	`(cd src && rm -f x.go)`,
	`bash -c 'rm -rf "$1"' _ build`,
	`sh -c 'cd dist && rm -rf ./*'`,
	`tar -czf out.tgz src && mkdir -p unpacked && tar -xzf out.tgz -C unpacked`,
	`sed -i 's/package/PACKAGE/' src/x.go`,
	`mv src moved && rm -rf moved`,
	`truncate -s 0 build/a.o`,
	`shred -u build/a.o`,
	`dd if=/dev/zero of=./disk.img bs=1k count=4 2>/dev/null`,
	`python3 -c "import shutil; shutil.rmtree('build')"`,
	`perl -e 'use File::Path; rmtree("dist")'`,
	`git init -q . && git clean -fdxq`,
	`f(){ rm -rf "$1"; }; f build; f dist`,
	`rm -rf "$(pwd)/build"`,
	`echo 'rm -rf build' > clean.sh && bash clean.sh`,
}

// scratchLayout is the home folder each real run starts from.
var scratchLayout = map[string]string{
	"keep.txt":               "outside the workspace, in the home folder",
	"Documents/report.txt":   "the user's document",
	".bashrc":                "# the user's shell start-up file",
	"proj/build/a.o":         "object",
	"proj/build/sub/b.o":     "object",
	"proj/dist/app.js":       "bundle",
	"proj/node_modules/m.js": "module",
	"proj/src/x.go":          "package x",
	"proj/src/y.o":           "object",
	"proj/a.tmp":             "tmp",
	"proj/b.tmp":             "tmp",
	"proj/list.txt":          "build\n",
}

func TestShellGuardRealRun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the real run needs Linux")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	isolateErr := canIsolate()
	isolated := isolateErr == nil
	if !isolated {
		if os.Getenv(noNamespaceEnv) == "" {
			t.Fatalf("the real run needs private mount and network namespaces, so that a write outside the scratch folder fails and nothing reaches the network, but they cannot be made: %v. Run the tests as root with unshare (scripts/test.sh does), or set %s=1 to run the commands with a scratch HOME only", isolateErr, noNamespaceEnv)
		}
		t.Logf("%s is set and the namespaces cannot be made (%v): running with a scratch HOME only", noNamespaceEnv, isolateErr)
	}
	// A folder beside the scratch home stands for everything outside it.
	beside := t.TempDir()
	if err := os.WriteFile(filepath.Join(beside, "neighbour.txt"), []byte("not yours"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range realRunCommands {
		t.Run(cmd, func(t *testing.T) {
			if strings.Contains(cmd, "python3") && !hasProgram("python3") || strings.Contains(cmd, "perl") && !hasProgram("perl") ||
				strings.Contains(cmd, "git ") && !hasProgram("git") || strings.Contains(cmd, "rsync") && !hasProgram("rsync") {
				t.Skip("program not installed")
			}
			scratch := t.TempDir()
			home := filepath.Join(scratch, "home")
			tmp := filepath.Join(scratch, "tmp")
			for name, content := range scratchLayout {
				p := filepath.Join(home, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
			ws := filepath.Join(home, "proj")
			v := CheckWith(cmd, ws, walk.Options{Home: home, TempDirs: []string{tmp}})
			if v.Denied || v.Held {
				t.Fatalf("the guard does not let it run: %s %q", v.Reason, v.Holds)
			}
			before := treeState(t, home, filepath.Join(home, "proj"))
			outside := treeState(t, beside, "")

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var c *exec.Cmd
			if isolated {
				// A private mount namespace where everything but the
				// scratch folder is read-only, so a write that escapes
				// fails, and a network namespace with no way out.
				script := `mount --bind "$SCRATCH" "$SCRATCH" && mount -o remount,bind,ro / && cd "$HOME/proj" && exec bash -c "$CMD"`
				c = exec.CommandContext(ctx, "unshare", "-m", "-n", "--propagation", "private", bash, "-c", script)
			} else {
				c = exec.CommandContext(ctx, bash, "-c", `cd "$HOME/proj" && exec bash -c "$CMD"`)
			}
			c.Env = []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=" + os.Getenv("PATH"), "SCRATCH=" + scratch, "CMD=" + cmd, "LANG=C"}
			out, err := c.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the command did not finish: %s", out)
			}
			if strings.Contains(string(out), "Read-only file system") {
				t.Fatalf("the command tried to write outside the scratch folder:\n%s", out)
			}
			if err != nil {
				t.Logf("exit: %v\n%s", err, out)
			}
			if after := treeState(t, home, filepath.Join(home, "proj")); after != before {
				t.Errorf("the home folder outside the workspace changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if after := treeState(t, beside, ""); after != outside {
				t.Errorf("a folder outside the scratch folder changed:\n%s", after)
			}
		})
	}
}

// noNamespaceEnv, set to anything, lets TestShellGuardRealRun run without
// the namespaces (a scratch HOME only) where they cannot be made, as for a
// developer who is not root; CI must not set it.
const noNamespaceEnv = "TINYELF_REALRUN_NO_NAMESPACE"

// canIsolate says why private mount and network namespaces cannot be made
// (root with unshare), or nil when they can.
func canIsolate() error {
	if os.Geteuid() != 0 {
		return errors.New("not running as root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		return err
	}
	if out, err := exec.Command("unshare", "-m", "-n", "--propagation", "private", "true").CombinedOutput(); err != nil {
		return fmt.Errorf("unshare -m -n: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// treeState lists every file under root except skip, with its size, mode
// and modification time.
func treeState(t *testing.T, root, skip string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != "" && p == skip {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		lines = append(lines, fmt.Sprintf("%s %d %v %d", rel, fi.Size(), fi.Mode(), fi.ModTime().UnixNano()))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
