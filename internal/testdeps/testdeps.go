// Package testdeps finds the programs tests need beyond Go: the declared
// test dependencies, which scripts/lib.sh installs (TINYELF_TEST_PACKAGES).
// Outside CI a test whose program is missing is skipped; in CI (CI or
// TINYELF_CI set, as scripts/test.sh does) it fails, so that a check CI is
// believed to run cannot quietly stop running.
package testdeps

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI: TINYELF_CI, else CI, is set to
// something other than "", "0" or "false".
func InCI() bool {
	v := os.Getenv("TINYELF_CI")
	if v == "" {
		v = os.Getenv("CI")
	}
	return v != "" && v != "0" && v != "false"
}

// Python returns the Python 3 interpreter the user-tool tests run
// (TINYELF_TEST_PYTHON, else python3 on PATH). When there is none it skips
// the test, or fails it in CI: python3 is a declared test dependency.
func Python(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TINYELF_TEST_PYTHON"); p != "" {
		return p
	}
	if _, err := exec.LookPath("python3"); err != nil {
		missing(t, "python3", "python3")
	}
	return "python3"
}

// missing skips t for a program not installed, or fails it in CI.
func missing(t testing.TB, program, pkg string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is not installed, and in CI no test may skip for it: it is a declared test dependency (Debian %s, in scripts/lib.sh's TINYELF_TEST_PACKAGES)", program, pkg)
	} else {
		t.Skipf("%s is not installed", program)
	}
}
