//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// launcher is how the smoke starts TinyElf: the command line, the
// environment it starts from (before the screen and the bus are added) in a
// temporary folder, and the data folder the app must use there.
type launcher struct {
	argv    []string
	env     func(tmp string) []string
	dataDir func(tmp string) string
	// how says, for the log, how the app was started.
	how string
}

// binaryLauncher runs bin with the caller's environment, less what would
// reach the developer's own screen or data, and TINYELF_HOME set.
func binaryLauncher(bin string) launcher {
	return launcher{
		argv:    []string{bin},
		env:     func(tmp string) []string { return append(baseEnv(tmp), "TINYELF_TIMING=1") },
		dataDir: func(tmp string) string { return filepath.Join(tmp, "home") },
		how:     bin,
	}
}

// desktopPath is the PATH a desktop session hands the programs it starts.
const desktopPath = "/usr/local/bin:/usr/bin:/bin"

// entryLauncher starts the app as a click on its desktop entry does: the
// entry's Exec line (field codes dropped, the program found on a desktop
// session's PATH) in the environment a desktop session gives a program and
// nothing else: no TINYELF_HOME, no provider variables, no XDG_CONFIG_HOME.
// The data folder must then be the XDG default, ~/.config/tinyelf.
func entryLauncher(entry string) (launcher, error) {
	argv, err := desktopExec(entry)
	if err != nil {
		return launcher{}, err
	}
	return launcher{
		argv: argv,
		env: func(tmp string) []string {
			runtimeDir := filepath.Join(tmp, "runtime")
			home := filepath.Join(tmp, "user")
			_ = os.MkdirAll(runtimeDir, 0o700)
			_ = os.MkdirAll(home, 0o700)
			return []string{"PATH=" + desktopPath, "HOME=" + home, "USER=" + os.Getenv("USER"), "LANG=C.UTF-8",
				"XDG_RUNTIME_DIR=" + runtimeDir, "XDG_SESSION_TYPE=x11", "XDG_CURRENT_DESKTOP=GNOME"}
		},
		dataDir: func(tmp string) string { return filepath.Join(tmp, "user", ".config", "tinyelf") },
		how:     fmt.Sprintf("%s (Exec=%s)", entry, strings.Join(argv, " ")),
	}, nil
}

// desktopExec reads the Exec key of a desktop entry's [Desktop Entry] group
// and returns its command line with the field codes (%U, %f, …) dropped and
// the program resolved on desktopPath. Quoting beyond plain words is not
// needed for TinyElf's entry and is refused.
func desktopExec(entry string) ([]string, error) {
	f, err := os.Open(entry)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var execLine string
	group := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			group = line
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && group == "[Desktop Entry]" && strings.TrimSpace(k) == "Exec" {
			execLine = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", entry, err)
	}
	if execLine == "" {
		return nil, fmt.Errorf("%s has no Exec line in [Desktop Entry]", entry)
	}
	if strings.ContainsAny(execLine, `"'\`) {
		return nil, fmt.Errorf("%s: Exec=%s is quoted; the smoke reads plain words only", entry, execLine)
	}
	var argv []string
	for _, w := range strings.Fields(execLine) {
		if len(w) == 2 && w[0] == '%' {
			continue // a field code: the menu passes no files
		}
		argv = append(argv, w)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: Exec=%s names no program", entry, execLine)
	}
	prog, err := lookPathIn(argv[0], desktopPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entry, err)
	}
	argv[0] = prog
	return argv, nil
}

// lookPathIn finds prog as a shell with PATH=path would.
func lookPathIn(prog, path string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, prog)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not on a desktop session's PATH (%s)", prog, path)
}

// command returns the command that starts the app.
func (l launcher) command() *exec.Cmd {
	return exec.Command(l.argv[0], l.argv[1:]...)
}

// commandContext is command, ended when ctx ends.
func (l launcher) commandContext(ctx context.Context) *exec.Cmd {
	return exec.CommandContext(ctx, l.argv[0], l.argv[1:]...)
}
