package testdeps

import "testing"

func TestInCI(t *testing.T) {
	for _, tc := range []struct {
		tinyelf, ci string
		want        bool
	}{
		{"", "", false},
		{"1", "", true},
		{"", "true", true},
		{"0", "true", false}, // TINYELF_CI decides when set
		{"", "false", false},
	} {
		t.Setenv("TINYELF_CI", tc.tinyelf)
		t.Setenv("CI", tc.ci)
		if got := InCI(); got != tc.want {
			t.Errorf("TINYELF_CI=%q CI=%q: InCI() = %v, want %v", tc.tinyelf, tc.ci, got, tc.want)
		}
	}
}

// recorder is a testing.TB that records whether it skipped or failed.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestPythonMissingFailsInCI(t *testing.T) {
	t.Setenv("TINYELF_TEST_PYTHON", "")
	t.Setenv("PATH", t.TempDir()) // no python3 here
	t.Setenv("CI", "") // CI runners set it; TINYELF_CI alone is under test here
	for _, ci := range []string{"", "1"} {
		t.Setenv("TINYELF_CI", ci)
		r := &recorder{TB: t}
		Python(r)
		if ci == "" && (!r.skipped || r.failed) || ci != "" && (!r.failed || r.skipped) {
			t.Errorf("TINYELF_CI=%q: skipped %v, failed %v", ci, r.skipped, r.failed)
		}
	}
}
