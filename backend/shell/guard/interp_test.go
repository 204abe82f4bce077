package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"tinyelf/backend/shell/guard/walk"
)

// cannotFollow is the hold reason of inline code in a language the guard
// does not follow.
func cannotFollow(title string) string {
	return "is " + title + ", which the guard cannot follow, so what it does cannot be checked before it runs."
}

const rootGone = "would recursively delete the root folder /."

// interpreterRowCases are, for each row of the interpreter table (by its
// first name), commands that give it inline code (held when the guard
// cannot follow the language, free when it can and sees nothing
// destructive), obvious destructive code (refused), and the forms that
// run no inline code (free). TestShellGuardInterpreterTable fails on a row
// without cases.
var interpreterRowCases = map[string][]guardCase{
	"python": {
		{"python3 -c 'print(1)'", mayRun, ""},
		{"python3 -c'import os; os.system(\"rm -rf /\")'", refused, rootGone},
		{"python3 -Bc 'import shutil; shutil.rmtree(\"/\")'", refused, rootGone},
		{"python3.12 -I -c 'import os; os.system(\"rm -rf /\")'", refused, rootGone},
		{"python3 -m pytest -q", mayRun, ""},
	},
	"ipython": {
		{"ipython -c 'print(1)'", mayRun, ""},
		{"ipython -c '!rm -rf /'", refused, rootGone},
	},
	"perl": {
		{"perl -lne 'print' notes.txt", mayRun, ""},
		{"perl -e'system(\"rm -rf /\")'", refused, rootGone},
		{"perl -we 'system(\"rm -rf /\")'", refused, rootGone},
	},
	"ruby": {
		{"ruby -e 'puts 1'", mayRun, ""},
		{"ruby -e'system(\"rm -rf /\")'", refused, rootGone},
	},
	"node": {
		{"node -e 'console.log(1)'", mayRun, ""},
		{"node -pe '1+1'", mayRun, ""},
		{"node --eval='require(\"child_process\").execSync(\"rm -rf /\")'", refused, rootGone},
		{"node -e 'require(\"zx\").$`rm -rf /`'", refused, rootGone},
	},
	"deno": {
		{"deno eval 'console.log(1)'", mayRun, ""},
		{"deno run -A main.ts", mayRun, ""},
		{"deno eval 'new Deno.Command(\"rm\", {args: [\"-rf\", \"/\"]}).outputSync()'", refused, rootGone},
		{"deno eval 'Deno.removeSync(\"/\", {recursive: true})'", refused, rootGone},
		{"deno eval 'Deno.run({cmd: [\"rm\", \"-rf\", \"/\"]})'", refused, rootGone},
	},
	"bun": {
		{"bun -e 'console.log(1)'", mayRun, ""},
		{"bun -e 'await Bun.$`rm -rf /`'", refused, rootGone},
		{"bun -e 'Bun.$`rm -rf ${dir}`'", ask, "is built when it runs"},
		{"bun run build", mayRun, ""},
	},
	"php": {
		{"php -r 'echo 1;'", mayRun, ""},
		{"php -r 'system(\"rm -rf /\");'", refused, rootGone},
	},
	"awk": {
		{"awk '{print $1}' notes.txt", mayRun, ""},
		{"gawk --source='BEGIN{system(\"rm -rf /\")}'", refused, rootGone},
		{"mawk -e 'BEGIN{system(\"rm -rf /\")}'", refused, rootGone},
	},
	"sqlite3": {
		{"sqlite3 x.db 'select 1'", mayRun, ""},
		{"sqlite3 x.db '.tables'", mayRun, ""},
		{"sqlite3 x.db '.system ls'", mayRun, ""},
		{"sqlite3 x.db '.shell rm -rf /'", refused, rootGone},
		{"sqlite3 -cmd '.system rm -rf /' x.db", refused, rootGone},
		{"echo '.shell rm -rf /' | sqlite3 x.db", refused, rootGone},
		{"echo 'select 1;' | sqlite3 -cmd '.mode csv' x.db", mayRun, ""},
		{"sqlite3 x.db \".once '|rm -rf /'\" 'select 1'", refused, rootGone},
		{"sqlite3 x.db '.load ./ext.so'", ask, "loads a native library"},
	},
	"psql": {
		{"psql -c 'select 1'", mayRun, ""},
		{"psql -tAc '\\! rm -rf /'", refused, rootGone},
		{"psql -c \"COPY t TO PROGRAM 'rm -rf /'\"", refused, rootGone},
	},
	"mysql": {
		{"mysql -p -e 'select 1'", mayRun, ""},
		{"mysql -uroot -e 'system rm -rf /'", refused, rootGone},
	},
	"gdb": {
		{"gdb -batch -ex bt ./prog core", mayRun, ""},
		{"gdb -batch -ex 'shell rm -rf /'", refused, rootGone},
		{"gdb -batch -ex '!rm -rf /'", refused, rootGone},
		{"gdb -batch -ex 'python import os; os.system(\"rm -rf /\")'", refused, rootGone},
		{"gdb -batch -ex 'python print(1)'", mayRun, ""},
		{"gdb -batch -ex 'call system(\"rm -rf /\")' -p 4242", refused, rootGone},
		{"gdb -batch -ex 'run ; rm -rf /' ./prog", refused, rootGone},
		{"gdb -batch -ex 'shell rm -rf /' --args ./prog", refused, rootGone},
		{"gdb -batch -ex run --args rm -rf /", refused, rootGone},
		{"gdb -ex 'guile (display 1)'", ask, "runs Scheme code, which the guard cannot follow"},
	},
	"ed": {
		{"printf '1d\\nw\\nq\\n' | ed -s notes.txt", mayRun, ""},
		{"printf '!rm -rf /\\nq\\n' | ed -s", refused, rootGone},
	},
	"dc": {
		{"dc -e '2 3 + p'", mayRun, ""},
		{"dc -e '!rm -rf /'", refused, rootGone},
	},
	"m4": {
		{"m4 macros.m4", mayRun, ""},
		{"echo 'syscmd(rm -rf /)' | m4", refused, rootGone},
	},
	"gnuplot": {
		{"gnuplot -e 'plot sin(x)'", mayRun, ""},
		{"gnuplot -e 'system(\"rm -rf /\")'", refused, rootGone},
		{"gnuplot -e '!rm -rf /'", refused, rootGone},
	},
	"lua": {
		{"lua -e 'print(1)'", ask, cannotFollow("Lua")},
		{"lua -e 'os.execute(\"rm -rf /\")'", refused, rootGone},
		{"lua5.4 -e'os.execute(\"rm -rf /\")'", refused, rootGone},
		{"lua script.lua", mayRun, ""},
	},
	"r": {
		{"R -e 'print(1)'", ask, cannotFollow("R")},
		{"Rscript -e 'print(1)'", ask, cannotFollow("R")},
		{"Rscript -e 'unlink(\"/\",recursive=TRUE)'", refused, rootGone},
		{"Rscript -e 'system(\"rm -rf /\")'", refused, rootGone},
		{"R --version", mayRun, ""},
		{"Rscript analysis.R --args a b", mayRun, ""},
	},
	"julia": {
		{"julia -e 'println(1)'", ask, cannotFollow("Julia")},
		{"julia -E '1+1'", ask, cannotFollow("Julia")},
		{"julia --eval='println(1)'", ask, cannotFollow("Julia")},
		{"julia -e 'rm(\"/\", recursive=true)'", refused, rootGone},
		{"julia -e 'rm(\"/\"; force=true, recursive=true)'", refused, rootGone},
		{"julia -e 'run(`rm -rf /`)'", refused, rootGone},
		{"echo 'println(1)' | julia", ask, cannotFollow("Julia")},
		{"julia script.jl", mayRun, ""},
		{"julia --project=. -t 4 script.jl", mayRun, ""},
	},
	"tclsh": {
		{"echo 'puts hi' | tclsh", ask, cannotFollow("Tcl")},
		{"echo 'exec rm -rf /' | tclsh", refused, rootGone},
		{"echo 'file delete -force /' | tclsh", refused, rootGone},
		{"tclsh <<'EOF'\nopen \"|rm -rf /\"\nEOF", refused, rootGone},
		{"tclsh", mayRun, ""},
		{"tclsh script.tcl", mayRun, ""},
	},
	"expect": {
		{"expect -c 'spawn ssh host'", ask, cannotFollow("Tcl (expect)")},
		{"expect -c 'exec rm -rf /'", refused, rootGone},
		{"expect script.exp", mayRun, ""},
	},
	"pwsh": {
		{"pwsh -c 'Get-ChildItem'", ask, cannotFollow("PowerShell")},
		{"pwsh -NoProfile -Command 'Get-Date'", ask, cannotFollow("PowerShell")},
		{"pwsh -c 'rm -r /'", refused, "would recursively delete /."},
		{"pwsh -Com Remove-Item -Recurse -Force /", refused, "would recursively delete /."},
		{"pwsh -EncodedCommand UgBlAG0AbwB2AGUALQBJAHQAZQBtACAALQBSAGUAYwB1AHIAcwBlACAALwA=", refused, "would recursively delete /."},
		{"echo 'Get-Date' | pwsh -Command -", ask, cannotFollow("PowerShell")},
		{"pwsh -File script.ps1", mayRun, ""},
	},
	"powershell": {
		{"powershell 'Get-Date'", ask, cannotFollow("PowerShell")},
		{"powershell Remove-Item -Recurse -Force 'C:\\'", refused, "would recursively delete C:\\."},
	},
	"osascript": {
		{"osascript -e 'display dialog \"hi\"'", ask, cannotFollow("AppleScript")},
		{"osascript -e 'do shell script \"rm -rf /\"'", refused, rootGone},
		{"osascript script.scpt", mayRun, ""},
	},
	"guile": {
		{"guile -c '(display 1)'", ask, cannotFollow("Scheme (Guile)")},
		{"guile -c '(system \"rm -rf /\")'", refused, rootGone},
		{"guile -c '(system* \"rm\" \"-rf\" \"/\")'", refused, rootGone},
		{"guile script.scm", mayRun, ""},
	},
	"racket": {
		{"racket -e '(displayln 1)'", ask, cannotFollow("Racket")},
		{"racket -e '(system \"rm -rf /\")'", refused, rootGone},
		{"racket -e '(delete-directory/files \"/\")'", refused, rootGone},
	},
	"csi": {
		{"csi -e '(print 1)'", ask, cannotFollow("Scheme")},
		{"csi -e '(system \"rm -rf /\")'", refused, rootGone},
	},
	"sbcl": {
		{"sbcl --non-interactive --eval '(print 1)'", ask, cannotFollow("Common Lisp")},
		{"sbcl --eval '(uiop:run-program \"rm -rf /\")'", refused, rootGone},
		{"sbcl --eval '(sb-ext:run-program \"/bin/rm\" (list \"-rf\" \"/\"))'", refused, rootGone},
		{"clisp -x '(ext:shell \"rm -rf /\")'", refused, rootGone},
	},
	"emacs": {
		{"emacs --batch --eval '(message \"hi\")'", ask, cannotFollow("Emacs Lisp")},
		{"emacs --batch --eval '(delete-directory \"/\" t)'", refused, rootGone},
		{"emacs --batch --eval='(delete-directory \"/\" t)'", refused, rootGone},
		{"emacs -batch -eval '(shell-command \"rm -rf /\")'", refused, rootGone},
		{"emacs --batch --eval '(call-process \"rm\" nil nil nil \"-rf\" \"/\")'", refused, rootGone},
		{"emacs --batch -f batch-byte-compile init.el", ask, cannotFollow("Emacs Lisp")},
		{"emacs file.txt", mayRun, ""},
		{"emacs -nw -fn monospace file.txt", mayRun, ""},
		{"emacs --batch -l build.el", mayRun, ""},
	},
	"emacsclient": {
		{"emacsclient -e '(buffer-list)'", ask, cannotFollow("Emacs Lisp")},
		{"emacsclient -e '(shell-command \"rm -rf /\")'", refused, rootGone},
		{"emacsclient file.txt", mayRun, ""},
	},
	"vim": {
		{"vim -c ':!ls'", ask, cannotFollow("Vim script")},
		{"vim -c 'wq' file.txt", ask, cannotFollow("Vim script")},
		{"vim -c '!rm -rf /'", refused, rootGone},
		{"vim -c ':!rm -rf /'", refused, rootGone},
		{"vim +'!rm -rf /'", refused, rootGone},
		{"vim -c 'silent !rm -rf /' -c qa", refused, rootGone},
		{"vim -c 'call system(\"rm -rf /\")'", refused, rootGone},
		{"vim -c 'r !rm -rf /'", refused, rootGone},
		{"nvim --headless -c 'lua os.execute(\"rm -rf /\")' -c qa", refused, rootGone},
		{"vi --cmd 'py3 import os; os.system(\"rm -rf /\")'", refused, rootGone},
		{"printf '!rm -rf /\\n' | vim -es", refused, rootGone},
		{"vim file.txt", mayRun, ""},
		{"vim +10 file.txt", mayRun, ""},
		{"vim +/pattern file.txt", mayRun, ""},
		{"vim - < notes.txt", mayRun, ""},
	},
	"ex": {
		{"ex -c 'x' file.txt", ask, cannotFollow("Vim script (ex)")},
		{"printf '!rm -rf /\\n' | ex", refused, rootGone},
	},
	"groovy": {
		{"groovy -e 'println 1'", ask, cannotFollow("Groovy")},
		{"groovy -e '\"rm -rf /\".execute()'", refused, rootGone},
		{"groovy -e 'new File(\"/\").deleteDir()'", refused, rootGone},
		{"groovy script.groovy", mayRun, ""},
	},
	"jshell": {
		{"echo 'System.out.println(1)' | jshell -", ask, cannotFollow("Java (jshell)")},
		{"echo 'Runtime.getRuntime().exec(\"rm -rf /\")' | jshell -", refused, rootGone},
		{"jshell", mayRun, ""},
		{"jshell script.jsh", mayRun, ""},
	},
	"scala": {
		{"scala -e 'println(1)'", ask, cannotFollow("Scala")},
		{"scala -e '\"rm -rf /\".!'", refused, rootGone},
	},
	"kotlin": {
		{"kotlin -e 'println(1)'", ask, cannotFollow("Kotlin")},
		{"kotlin -e 'File(\"/\").deleteRecursively()'", refused, rootGone},
		{"kotlinc -script build.kts", mayRun, ""},
	},
	"clojure": {
		{"clojure -e '(println 1)'", ask, cannotFollow("Clojure")},
		{"clojure -e '(clojure.java.shell/sh \"rm\" \"-rf\" \"/\")'", refused, rootGone},
		{"bb -e '(babashka.fs/delete-tree \"/\")'", refused, rootGone},
	},
	"erl": {
		{"erl -noshell -eval 'io:format(\"hi\").' -s init stop", ask, cannotFollow("Erlang")},
		{"erl -noshell -eval 'os:cmd(\"rm -rf /\").'", refused, rootGone},
	},
	"escript": {
		{"escript build.erl", mayRun, ""},
	},
	"elixir": {
		{"elixir -e 'IO.puts 1'", ask, cannotFollow("Elixir")},
		{"elixir -e 'System.cmd(\"rm\", [\"-rf\", \"/\"])'", refused, rootGone},
		{"elixir -e 'File.rm_rf!(\"/\")'", refused, rootGone},
		{"elixir script.exs", mayRun, ""},
	},
	"mix": {
		{"mix run -e 'IO.puts 1'", ask, cannotFollow("Elixir")},
		{"mix run -e 'File.rm_rf!(\"/\")'", refused, rootGone},
		{"mix test", mayRun, ""},
	},
	"swift": {
		{"swift -e 'print(1)'", ask, cannotFollow("Swift")},
		{"swift -e 'try FileManager.default.removeItem(atPath: \"/\")'", refused, rootGone},
		{"swift build", mayRun, ""},
	},
	"ghc": {
		{"ghc -e 'print 1'", ask, cannotFollow("Haskell")},
		{"ghci -e 'callCommand \"rm -rf /\"'", refused, rootGone},
		{"ghc -e 'System.Process.callProcess \"rm\" [\"-rf\", \"/\"]'", refused, rootGone},
		{"runghc script.hs", mayRun, ""},
	},
	"octave": {
		{"octave --eval 'disp(1)'", ask, cannotFollow("Octave")},
		{"octave --eval 'system(\"rm -rf /\")'", refused, rootGone},
	},
	"matlab": {
		{"matlab -batch 'disp(1)'", ask, cannotFollow("MATLAB")},
		{"matlab -batch \"rmdir('/', 's')\"", refused, rootGone},
	},
	"raku": {
		{"raku -e 'say 1'", ask, cannotFollow("Raku")},
		{"raku -e 'shell \"rm -rf /\"'", refused, rootGone},
	},
	"crystal": {
		{"crystal eval 'puts 1'", ask, cannotFollow("Crystal")},
		{"crystal eval 'system(\"rm -rf /\")'", refused, rootGone},
		{"crystal build main.cr", mayRun, ""},
	},
	"tcc": {
		{"echo 'int main(){return 0;}' | tcc -run -", ask, cannotFollow("C (tcc -run)")},
		{"echo 'int main(){system(\"rm -rf /\");}' | tcc -run -", refused, rootGone},
		{"tcc -o x x.c", mayRun, ""},
	},
	"xonsh": {
		{"xonsh -c 'ls'", ask, cannotFollow("xonsh (Python and shell)")},
		{"xonsh -c 'rm -rf /'", refused, rootGone},
		{"xonsh -c 'import shutil; shutil.rmtree(\"/\")'", refused, rootGone},
	},
	"nu": {
		{"nu -c 'ls'", ask, cannotFollow("Nushell")},
		{"nu -c 'rm -rf /'", refused, rootGone},
	},
	"elvish": {
		{"elvish -c 'echo hi'", ask, cannotFollow("a shell whose language the guard does not parse")},
		{"elvish -c 'rm -rf /'", refused, rootGone},
	},
}

// TestShellGuardInterpreterTable runs each row's cases and fails on a row
// without any, on an unfollowed row without a held case that names its
// language, and on a followed row without a free inline case.
func TestShellGuardInterpreterTable(t *testing.T) {
	t.Parallel()
	for _, spec := range interpreters {
		row := spec.names[0]
		cases, ok := interpreterRowCases[row]
		if !ok {
			t.Errorf("the interpreter table's row %q has no test cases", row)
			continue
		}
		inline := len(spec.code)+len(spec.subCode)+len(spec.codeMode)+len(spec.stdinWith) > 0 || spec.stdin || spec.plus || spec.operand == "code"
		if inline && !spec.follows && !slices.ContainsFunc(cases, func(c guardCase) bool { return c.want == ask && strings.Contains(c.reason, spec.title) }) {
			t.Errorf("row %q: no case shows inline code held with a reason naming %s", row, spec.title)
		}
		if inline && !slices.ContainsFunc(cases, func(c guardCase) bool { return c.want == refused }) {
			t.Errorf("row %q: no case refuses obvious destructive code", row)
		}
		if inline && spec.follows && !slices.ContainsFunc(cases, func(c guardCase) bool { return c.want == mayRun }) {
			t.Errorf("row %q: no case shows harmless inline code running free", row)
		}
		t.Run(row, func(t *testing.T) {
			t.Parallel()
			checkCases(t, cases)
		})
	}
	for row := range interpreterRowCases {
		if s := interpreterNames[row]; s == nil || s.names[0] != row {
			t.Errorf("cases for %q, which is not the first name of a row", row)
		}
	}
}

// TestInterpreterNames checks that every name of the table leads to its
// own row, with and without a version.
func TestInterpreterNames(t *testing.T) {
	t.Parallel()
	for _, spec := range interpreters {
		for _, n := range spec.names {
			if interpreterFor(n) != spec {
				t.Errorf("%s does not lead to its row", n)
			}
			if spec.versioned && interpreterFor(n+"3.12") != spec {
				t.Errorf("%s3.12 does not lead to its row", n)
			}
		}
	}
	for _, n := range []string{"r2", "rm", "bash", "make", "ls", "ed25519"} {
		if s := interpreterFor(n); s != nil {
			t.Errorf("%s is taken for %s", n, s.title)
		}
	}
}

// TestShellGuardUnfollowedScripts checks that a script of a language the
// guard does not follow is judged like any script: free, with a warning
// that it was not followed, unless what the guard sees in it destroys.
func TestShellGuardUnfollowedScripts(t *testing.T) {
	t.Parallel()
	home, ws := guardHome(t)
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("script.jl", "println(\"hello\")\nfor f in readdir(\"build\")\n    rm(joinpath(\"build\", f); recursive=true)\nend\n")
	write("evil.jl", "println(\"hi\")\nrm(homedir(); recursive=true)\nrm(\"/\"; recursive=true)\n")
	write("tool.jl", "#!/usr/bin/env julia\nrun(`rm -rf /`)\n")
	write("analysis.R", "x <- read.csv('data.csv')\nprint(summary(x))\n")
	write("wipe.R", "unlink('/', recursive = TRUE)\n")
	write("clean.tcl", "file delete -force build\n")
	write("dump.sql", strings.Repeat("INSERT INTO t VALUES (1, 'x');\n", 20000)) // past what the guard reads
	checkCasesIn(t, home, ws, []guardCase{
		{"julia script.jl", mayRun, ""},
		{"julia evil.jl", refused, rootGone},
		{"./tool.jl", refused, rootGone},
		{"Rscript analysis.R", mayRun, ""},
		{"R --no-save < analysis.R", mayRun, ""},
		{"R --no-save < wipe.R", refused, rootGone},
		{"tclsh clean.tcl", mayRun, ""},
		{"cat analysis.R | R --no-save", ask, cannotFollow("R")},
		{"mysql app < dump.sql", mayRun, ""},
		{"psql app appuser < dump.sql", mayRun, ""},
		{"sqlite3 app.db < dump.sql", mayRun, ""},
	})
	v := CheckWith("julia script.jl", ws, walk.Options{Home: home})
	if !slices.ContainsFunc(v.Warnings, func(w string) bool { return strings.Contains(w, "the guard cannot follow Julia") }) {
		t.Errorf("no warning that the Julia script was not followed: %q", v.Warnings)
	}
}

// TestShellGuardNestedCodeThatDoesNotParse checks that code another shell
// runs is held when the guard cannot parse it (fish and csh read what bash
// cannot), while a command line that does not parse stays as before:
// bash refuses to run it.
func TestShellGuardNestedCodeThatDoesNotParse(t *testing.T) {
	t.Parallel()
	checkCases(t, []guardCase{
		{"fish -c 'echo (pwd)'", ask, "could not be parsed, so what it does cannot be checked before it runs."},
		{"fish -c 'rm -rf (echo /)'", refused, "it could not be parsed, so it was checked as text"},
		{"fish -c 'echo hi'", mayRun, ""},
		{"echo 'unterminated", mayRun, ""},
	})
}
