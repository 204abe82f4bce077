package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/tokens"
	"tinyelf/internal/cputime"
	"tinyelf/internal/testutil"
)

// makeSkills writes n skills shaped like published ones: a description of
// about 200 characters, a 3 KB body, a script and a reference.
func makeSkills(tb testing.TB, dir string, n int) {
	tb.Helper()
	body := strings.Repeat("Step: read the failing test, then the code under test, then change one thing.\n", 40)
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		desc := fmt.Sprintf("Handle task family %d: inspect the inputs, apply the checklist for this kind of work, verify the result with the narrowest test. Use when the user mentions topic-%d or area-%d.", i, i, i)
		md := fmt.Sprintf("---\nname: %s\ndescription: %s\nlicense: MIT\nmetadata:\n  author: bench\n  version: \"1.0\"\nallowed-tools: Bash(git:*) Read\n---\n\n# %s\n\n%s", name, desc, name, body)
		testutil.WriteFile(tb, filepath.Join(dir, name+"/SKILL.md"), md, 0)
		testutil.WriteFile(tb, filepath.Join(dir, name+"/scripts/run.sh"), "#!/bin/sh\necho run\n", 0)
		testutil.WriteFile(tb, filepath.Join(dir, name+"/references/guide.md"), "# Guide\n", 0)
	}
}

// BenchmarkLoadAndIndex500 loads 500 skills from disk and builds the index
// (goal: under 200 ms per op). It reports the process's CPU time per op
// (cpu-ns/op) beside the wall time, which other work on a shared machine
// inflates.
func BenchmarkLoadAndIndex500(b *testing.B) {
	data := b.TempDir()
	makeSkills(b, filepath.Join(data, "skills"), 500)
	opts := Options{DataDir: data}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Self()
	defer func() { b.ReportMetric(float64((cputime.Self()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op") }()
	for b.Loop() {
		snap := Load(opts)
		if len(snap.Skills) != 502 || len(snap.Invalid) != 0 {
			b.Fatalf("%d skills, %d invalid", len(snap.Skills), len(snap.Invalid))
		}
		_ = snap.Index(IndexOptions{})
	}
}

// BenchmarkIndex100 reports the index size for 100 skills in estimated
// tokens (tokens.Estimate: ASCII characters / 4, others 3/4 each)
// and the per-skill line budget.
func BenchmarkIndex100(b *testing.B) {
	data := b.TempDir()
	makeSkills(b, filepath.Join(data, "skills"), 100)
	snap := Load(Options{DataDir: data, NoDefaultBuiltins: true})
	var idx Index
	b.ResetTimer()
	for b.Loop() {
		idx = snap.Index(IndexOptions{})
	}
	b.StopTimer()
	// The cap: a 64-character name and a 250-character description.
	budget := IndexEntryFor(&Skill{Name: strings.Repeat("n", MaxNameLength), Description: strings.Repeat("d", 2000)}, DefaultIndexDescriptionRunes).Tokens
	b.ReportMetric(float64(idx.Tokens+tokens.Estimate(strings.SplitN(idx.Text(), "\n", 2)[0])), "index-tokens/100-skills")
	b.ReportMetric(float64(idx.Tokens)/float64(len(idx.Entries)), "tokens/skill")
	b.ReportMetric(float64(budget), "budget-tokens/skill")
	b.ReportMetric(float64(len(idx.Text())), "index-bytes/100-skills")
}
