package guard

import "strings"

// This file is the one table of the programs that run code given to them
// (interpreters, and tools with a command language of their own), how each
// takes that code, and whether the guard can follow it.
//
// A followed language (follows true) has a call table (code*.go)
// that covers its ways of running a command, deleting files and evaluating
// code built at run time: its inline code is scanned and, when nothing
// destructive or unknowable shows, runs without asking. An unfollowed
// language's inline code is held for a person's approval in every mode,
// with a reason naming the interpreter; the obvious destructive calls its
// call table knows are refused all the same. A script file is judged the
// same way for every language, as `bash script.sh`, `python3 script.py` and
// a program the guard cannot read are: it runs without asking unless what
// the guard can see in it is destructive (an unfollowed language adds a
// warning that the script's code was not followed).

// interpreterSpec is one row of the table.
type interpreterSpec struct {
	// names are the program names, as commandBase gives them (lower case).
	names []string
	// versioned reports that a version may follow a name (python3.12,
	// lua5.4, tclsh8.6).
	versioned bool
	// lang is the language scanCode reads the code as.
	lang string
	// title names the language in messages.
	title string
	// follows reports that the guard follows the language's inline code.
	follows bool
	// code are the options whose value is inline code.
	code []string
	// codeStops reports that after a code option every word is an argument
	// of the program (python -c CODE ARGS…).
	codeStops bool
	// restCode reports that the words after a code option are code too
	// (pwsh -Command a b c).
	restCode bool
	// encoded are the options whose value is base64 of UTF-16LE code.
	encoded []string
	// codeMode are options that make every operand inline code
	// (emacsclient --eval EXPR…).
	codeMode []string
	// subCode are subcommands whose next word is inline code (deno eval).
	subCode []string
	// subPass are subcommands passed over, options continuing after them
	// (deno run, mix run).
	subPass []string
	// files are the options whose value is a script file in the language.
	files []string
	// values are the options whose value is neither code nor a script.
	values []string
	// attachedOnly are options whose optional value is only ever attached
	// (mysql -pSECRET).
	attachedOnly []string
	// rest are options after which the words are a command line for the
	// program to run, not for the interpreter (gdb --args).
	rest []string
	// stop are options after which no inline code or script follows
	// (python -m runs a module by name).
	stop []string
	// getopt reports that short options cluster and take attached values
	// (-Bc CODE, -eCODE, -tAc CODE).
	getopt bool
	// fold reports that options are case-insensitive and may be shortened
	// to any unambiguous prefix (PowerShell).
	fold bool
	// operand says what the first operand is when no inline code was
	// given: "file" a script, "code" inline code (awk's program), "files"
	// files to work on, never code (an editor's documents), "db" a
	// database whose later operands are code (sqlite3 DB SQL…), "verb" a
	// subcommand the interpreter check leaves to the rest of the guard
	// (bun run, bun install).
	operand string
	// stdin reports that, given no code, script or file, the program reads
	// its code from standard input.
	stdin bool
	// stdinWith are options that make standard input code (vim -es).
	stdinWith []string
	// requires are options without one of which the program runs no code
	// (tcc compiles unless given -run).
	requires []string
	// plus reports that +CMD words are code (vim +CMD), except a line
	// number or a search (+42, +/pattern).
	plus bool
	// argsAfter are options after which every word is an argument of the
	// code (R --args).
	argsAfter []string
	// cmdStdin reports that standard input is read for more code even
	// after code given by options (sqlite3 -cmd, gdb -ex), unless the
	// operands carry code.
	cmdStdin bool
}

// interpreters is the table. Each row has a test case of its own in
// TestShellGuardInterpreterTable.
var interpreters = []*interpreterSpec{
	// Followed: the guard reads the code for its destructive calls.
	{names: []string{"python", "python2", "python3", "pypy", "pypy3", "micropython", "jython"}, versioned: true, lang: "python", title: "Python", follows: true,
		code: []string{"-c"}, codeStops: true, values: []string{"-W", "-X", "-Q"}, stop: []string{"-m"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"ipython", "ipython3"}, versioned: true, lang: "ipython", title: "IPython", follows: true,
		code: []string{"-c"}, codeStops: true, values: []string{"--profile", "--ipython-dir", "--config"}, stop: []string{"-m"}, operand: "file", stdin: true},
	{names: []string{"perl"}, versioned: true, lang: "perl", title: "Perl", follows: true,
		code: []string{"-e", "-E"}, values: []string{"-I", "-M", "-m"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"ruby", "jruby", "truffleruby", "irb"}, versioned: true, lang: "ruby", title: "Ruby", follows: true,
		code: []string{"-e"}, values: []string{"-I", "-r", "-C", "-E", "-F", "--encoding"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"node", "nodejs", "qjs", "js", "d8", "ts-node", "tsx"}, versioned: true, lang: "js", title: "JavaScript", follows: true,
		code: []string{"-e", "--eval", "-p", "--print", "-pe", "-ep"}, values: []string{"-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--input-type", "--env-file", "--title"}, operand: "file", stdin: true},
	{names: []string{"deno"}, lang: "js", title: "JavaScript (Deno)", follows: true,
		code: []string{"--eval"}, subCode: []string{"eval"}, subPass: []string{"run", "repl"},
		values: []string{"-c", "--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--env-file", "--ext"}, operand: "file"},
	{names: []string{"bun"}, lang: "js", title: "JavaScript (Bun)", follows: true,
		code: []string{"-e", "--eval", "-p", "--print"}, values: []string{"-r", "--preload", "--cwd", "--env-file", "--config", "-c"}, operand: "verb"},
	{names: []string{"php", "php-cli", "php-cgi"}, versioned: true, lang: "php", title: "PHP", follows: true,
		code: []string{"-r"}, files: []string{"-f"}, values: []string{"-c", "-d", "-z"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"awk", "gawk", "mawk", "nawk", "goawk", "original-awk", "bwk"}, lang: "awk", title: "awk", follows: true,
		code: []string{"-e", "--source"}, files: []string{"-f", "--file", "-E", "--exec", "-i", "--include"},
		values: []string{"-F", "-v", "--assign", "--field-separator", "-l", "--load", "-o", "-p", "-W"}, getopt: true, operand: "code"},
	{names: []string{"sqlite3", "sqlite"}, lang: "sqlite", title: "sqlite3's commands", follows: true,
		code: []string{"-cmd", "--cmd"}, files: []string{"-init", "--init"},
		values: []string{"-separator", "-newline", "-nullvalue", "-vfs", "-mmap", "-maxsize", "-escape", "-pagecache", "-lookaside", "-heap"}, operand: "db", stdin: true, cmdStdin: true},
	{names: []string{"psql"}, lang: "psql", title: "psql's commands", follows: true,
		code: []string{"-c", "--command"}, files: []string{"-f", "--file"},
		values: []string{"-d", "--dbname", "-h", "--host", "-p", "--port", "-U", "--username", "-v", "--set", "--variable", "-o", "--output", "-L", "--log-file", "-P", "--pset", "-F", "--field-separator", "-R", "--record-separator", "-T", "--table-attr"},
		getopt: true, operand: "files", stdin: true},
	{names: []string{"mysql", "mariadb"}, lang: "mysql", title: "the mysql client's commands", follows: true,
		code: []string{"-e", "--execute"}, values: []string{"-u", "--user", "-h", "--host", "-P", "--port", "-D", "--database", "-S", "--socket", "--defaults-file", "--defaults-extra-file", "--protocol"},
		attachedOnly: []string{"-p"}, getopt: true, operand: "files", stdin: true},
	{names: []string{"gdb", "gdb-multiarch", "cuda-gdb"}, lang: "gdb", title: "gdb's commands", follows: true,
		code:   []string{"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command", "--init-eval-command"},
		files:  []string{"-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command", "--init-command"},
		values: []string{"-p", "--pid", "-d", "--directory", "-s", "--symbols", "-e", "--exec", "-se", "-c", "--core", "-tty", "--tty", "-l", "-b", "-D", "--data-directory", "-i", "--interpreter", "-cd", "--cd"},
		rest:   []string{"--args"}, operand: "files", stdin: true, cmdStdin: true},
	{names: []string{"ed", "red"}, lang: "ed", title: "ed's commands", follows: true,
		values: []string{"-p", "--prompt"}, getopt: true, operand: "files", stdin: true},
	{names: []string{"dc"}, lang: "dc", title: "dc", follows: true,
		code: []string{"-e", "--expression"}, files: []string{"-f", "--file"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"m4", "gm4"}, lang: "m4", title: "m4", follows: true,
		values: []string{"-D", "--define", "-U", "--undefine", "-I", "--include", "-d", "--debug", "-o", "--error-output", "-l", "--arglength", "-L", "--nesting-limit", "-F", "--freeze-state", "-R", "--reload-state", "--debugfile"},
		getopt: true, operand: "file", stdin: true},
	{names: []string{"gnuplot"}, versioned: true, lang: "gnuplot", title: "gnuplot", follows: true,
		code: []string{"-e"}, files: []string{"-c"}, operand: "file", stdin: true},

	// Not followed: inline code is held for approval.
	{names: []string{"lua", "luajit", "texlua"}, versioned: true, lang: "lua", title: "Lua",
		code: []string{"-e"}, values: []string{"-l"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"r", "rscript"}, lang: "r", title: "R",
		code: []string{"-e", "--expr"}, files: []string{"-f", "--file"}, values: []string{"-d", "--debugger", "-g", "--gui"}, argsAfter: []string{"--args"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"julia"}, versioned: true, lang: "julia", title: "Julia",
		code: []string{"-e", "--eval", "-E", "--print"}, files: []string{"-L", "--load"},
		values: []string{"-J", "--sysimage", "-t", "--threads", "-p", "--procs", "-C", "--cpu-target", "-H", "--home", "--machine-file", "--project"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"tclsh", "wish", "jimsh"}, versioned: true, lang: "tcl", title: "Tcl",
		values: []string{"-encoding"}, operand: "file", stdin: true},
	{names: []string{"expect"}, lang: "tcl", title: "Tcl (expect)",
		code: []string{"-c"}, files: []string{"-f"}, values: []string{"-D"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"pwsh", "pwsh-preview"}, lang: "pwsh", title: "PowerShell",
		code: []string{"-c", "-command", "-commandwithargs", "-cwa"}, restCode: true, encoded: []string{"-e", "-ec", "-encodedcommand"}, files: []string{"-f", "-file"},
		values: []string{"-executionpolicy", "-ep", "-ex", "-windowstyle", "-w", "-workingdirectory", "-wd", "-outputformat", "-o", "-of", "-inputformat", "-if", "-inp", "-configurationname", "-config", "-custompipename", "-settingsfile", "-settings", "-version", "-psconsolefile", "-configurationfile"},
		fold:   true, operand: "file", stdin: true},
	{names: []string{"powershell", "powershell_ise"}, lang: "pwsh", title: "PowerShell",
		code: []string{"-c", "-command"}, restCode: true, encoded: []string{"-e", "-ec", "-encodedcommand"}, files: []string{"-f", "-file"},
		values: []string{"-executionpolicy", "-ep", "-ex", "-windowstyle", "-w", "-outputformat", "-o", "-of", "-inputformat", "-if", "-inp", "-configurationname", "-version", "-psconsolefile"},
		fold:   true, operand: "code", stdin: true},
	{names: []string{"osascript"}, lang: "applescript", title: "AppleScript",
		code: []string{"-e"}, values: []string{"-l", "-s"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"guile"}, versioned: true, lang: "scheme", title: "Scheme (Guile)",
		code: []string{"-c"}, codeStops: true, files: []string{"-s", "-l"}, values: []string{"-e", "-L", "-C", "-x", "--language", "--listen"}, operand: "file", stdin: true},
	{names: []string{"racket"}, lang: "scheme", title: "Racket",
		code: []string{"-e", "--eval"}, files: []string{"-f", "--load", "-r", "--script", "-t", "--require", "-u", "--require-script", "-k"},
		values: []string{"-l", "--lib", "-p", "-S", "--search", "-X", "--collects", "-G", "--config", "-C", "--cross-compiler"}, operand: "file", stdin: true},
	{names: []string{"csi", "gsi", "mit-scheme", "scheme", "chez", "petite", "chibi-scheme"}, lang: "scheme", title: "Scheme",
		code: []string{"-e", "-eval", "--eval", "-p", "-print", "-P", "-pretty-print"}, files: []string{"-s", "-script", "-ss", "--script", "--load", "-load"}, operand: "file", stdin: true},
	{names: []string{"sbcl", "clisp", "ecl", "ccl", "ccl64", "lx86cl64", "cmucl", "lisp"}, lang: "lisp", title: "Common Lisp",
		code: []string{"--eval", "-eval", "-x", "-e"}, files: []string{"--load", "-load", "--script", "-i", "-l", "-shell"}, values: []string{"--core", "--dynamic-space-size", "--control-stack-size", "-M", "-E"}, operand: "file", stdin: true},
	{names: []string{"emacs", "xemacs"}, versioned: true, lang: "elisp", title: "Emacs Lisp",
		code: []string{"--eval", "-eval", "--execute", "-execute", "-f", "--funcall", "-funcall"}, files: []string{"-l", "--load", "-load", "--script", "-script", "-x", "-scriptload"},
		values: []string{"-L", "--directory", "--chdir", "-t", "--terminal", "-d", "--display", "--init-directory", "--dump-file", "-u", "--user", "-fn", "--font", "-bg", "-fg", "--name", "-T", "--title"}, operand: "files"},
	{names: []string{"emacsclient"}, lang: "elisp", title: "Emacs Lisp",
		codeMode: []string{"-e", "--eval"}, values: []string{"-s", "--socket-name", "-f", "--server-file", "-a", "--alternate-editor", "-d", "--display", "-T", "--tramp"}, operand: "files"},
	{names: []string{"vim", "nvim", "vi", "view", "vimdiff", "gvim", "rvim", "evim", "nvi", "vim.basic", "vim.tiny", "vim.gtk3"}, lang: "vim", title: "Vim script",
		code: []string{"-c", "--cmd", "--remote-send", "--remote-expr"}, files: []string{"-S", "-u", "-U", "-s", "-l"}, values: []string{"-t", "-q", "-T", "-w", "-W", "-i", "--servername", "--listen", "-r"},
		plus: true, stdinWith: []string{"-e", "-E", "-es", "-Es"}, operand: "files"},
	{names: []string{"ex", "nex", "exim-ex"}, lang: "vim", title: "Vim script (ex)",
		code: []string{"-c", "--cmd"}, files: []string{"-S", "-u"}, values: []string{"-t", "-q", "-T", "-w", "-W", "-i", "-r"},
		plus: true, operand: "files", stdin: true},
	{names: []string{"groovy"}, lang: "groovy", title: "Groovy",
		code: []string{"-e"}, values: []string{"-cp", "-classpath", "--classpath", "-c", "--encoding", "--configscript", "-l", "-i"}, operand: "file"},
	{names: []string{"jshell"}, lang: "java", title: "Java (jshell)",
		files: []string{"--startup"}, values: []string{"--class-path", "--module-path", "--add-modules", "--add-exports", "-R", "-J", "-C", "--feedback", "--execution"}, operand: "file", stdin: true},
	{names: []string{"scala", "scala-cli", "amm"}, lang: "scala", title: "Scala",
		code: []string{"-e", "--execute", "--execute-script", "--execute-scala", "-c", "--code"}, values: []string{"-cp", "-classpath", "--classpath", "-S", "--scala"}, operand: "file"},
	{names: []string{"kotlin", "kotlinc", "kotlinc-jvm"}, lang: "kotlin", title: "Kotlin",
		code: []string{"-e", "-expression"}, files: []string{"-script"}, values: []string{"-cp", "-classpath", "-d", "-jvm-target", "-language-version", "-api-version"}, operand: "file"},
	{names: []string{"clojure", "clj", "bb", "babashka"}, lang: "clojure", title: "Clojure",
		code: []string{"-e", "--eval"}, files: []string{"-i", "--init", "-f", "--file"}, values: []string{"-Sdeps", "-Scp", "-m", "--main", "-cp", "--classpath"}, operand: "file"},
	{names: []string{"erl"}, lang: "erlang", title: "Erlang",
		code: []string{"-eval", "-s", "-run"}, values: []string{"-sname", "-name", "-setcookie", "-config", "-boot", "-mode", "-pa", "-pz", "-args_file", "-env"}, operand: "files", stdin: true},
	{names: []string{"escript"}, lang: "erlang", title: "Erlang", operand: "file"},
	{names: []string{"elixir", "iex"}, lang: "elixir", title: "Elixir",
		code: []string{"-e", "--eval"}, files: []string{"-r", "-pr", "--dot-iex"}, values: []string{"--erl", "--sname", "--name", "--cookie", "-pa", "-pz", "-S", "--logger-otp-reports", "--logger-sasl-reports"}, operand: "file"},
	{names: []string{"mix"}, lang: "elixir", title: "Elixir",
		code: []string{"-e", "--eval"}, subPass: []string{"run"}, files: []string{"-r", "--require"}, operand: "verb"},
	{names: []string{"swift"}, lang: "swift", title: "Swift",
		code: []string{"-e"}, values: []string{"-I", "-L", "-l", "-module-name", "-sdk", "-target"}, operand: "file"},
	{names: []string{"ghc", "ghci", "runghc", "runhaskell"}, versioned: true, lang: "haskell", title: "Haskell",
		code: []string{"-e"}, values: []string{"-i", "-o", "-package", "-outputdir"}, operand: "file"},
	{names: []string{"octave", "octave-cli"}, versioned: true, lang: "matlab", title: "Octave",
		code: []string{"--eval"}, values: []string{"-p", "--path", "--image-path", "--info-file", "--exec-path", "--doc-cache-file"}, operand: "file", stdin: true},
	{names: []string{"matlab"}, lang: "matlab", title: "MATLAB",
		code: []string{"-batch", "-r"}, values: []string{"-sd", "-logfile", "-c"}, operand: "files", stdin: true},
	{names: []string{"raku", "perl6", "rakudo"}, lang: "raku", title: "Raku",
		code: []string{"-e"}, values: []string{"-I", "-M"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"crystal"}, lang: "crystal", title: "Crystal",
		subCode: []string{"eval"}, subPass: []string{"run", "i"}, operand: "file"},
	{names: []string{"tcc"}, lang: "c", title: "C (tcc -run)",
		values: []string{"-I", "-L", "-l", "-D", "-U", "-o"}, requires: []string{"-run"}, operand: "file"},
	{names: []string{"xonsh"}, lang: "xonsh", title: "xonsh (Python and shell)",
		code: []string{"-c"}, codeStops: true, values: []string{"-D", "--rc"}, getopt: true, operand: "file", stdin: true},
	{names: []string{"nu", "nushell"}, lang: "shlike", title: "Nushell",
		code: []string{"-c", "--commands"}, values: []string{"--config", "--env-config", "--plugin-config", "-I", "--include-path", "--log-level", "--table-mode", "-m"}, getopt: true, operand: "file"},
	{names: []string{"elvish", "ion", "murex", "ysh", "oil"}, lang: "shlike", title: "a shell whose language the guard does not parse",
		code: []string{"-c", "-code"}, values: []string{"-rc", "-lib", "-sock"}, operand: "file", stdin: true},
}

// interpreterNames indexes the table by program name.
var interpreterNames = func() map[string]*interpreterSpec {
	m := map[string]*interpreterSpec{}
	for _, s := range interpreters {
		for _, n := range s.names {
			if _, dup := m[n]; dup {
				panic("interpreter table: " + n + " listed twice")
			}
			m[n] = s
		}
	}
	return m
}()

// interpreterFor returns the row of a program, or nil.
func interpreterFor(base string) *interpreterSpec {
	if s, ok := interpreterNames[base]; ok {
		return s
	}
	// A version after the name: python3.12, lua5.4, tclsh8.6, ghc-9.4.
	for i := len(base) - 1; i > 0 && strings.IndexByte("0123456789.-", base[i]) >= 0; i-- {
		if s, ok := interpreterNames[base[:i]]; ok && s.versioned {
			return s
		}
	}
	return nil
}
