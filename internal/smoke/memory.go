package smoke

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Process is one process of a measured tree.
type Process struct {
	PID   int
	Name  string
	RSSkB int // resident set size (VmRSS), in kB
	// PSSkB is the proportional set size (smaps_rollup's Pss), in kB: the
	// pages shared with other processes (libraries, shared memory) divided
	// among them, so that a tree's sum counts them once. 0 when unknown.
	PSSkB int
}

// Memory is the resident memory of a process and its descendants.
type Memory struct {
	Processes []Process // the root first, then by name and pid
}

// TotalkB is the sum of the processes' resident memory, in kB.
func (m Memory) TotalkB() int {
	total := 0
	for _, p := range m.Processes {
		total += p.RSSkB
	}
	return total
}

// ByName sums the resident memory of the processes of each name, in kB.
func (m Memory) ByName() map[string]int {
	sums := make(map[string]int)
	for _, p := range m.Processes {
		sums[p.Name] += p.RSSkB
	}
	return sums
}

// TotalPSSkB is the sum of the processes' proportional set sizes, in kB.
func (m Memory) TotalPSSkB() int {
	total := 0
	for _, p := range m.Processes {
		total += p.PSSkB
	}
	return total
}

// String is the figure as the smoke prints it: the total and each
// process's RSS, then the total PSS when it is known.
func (m Memory) String() string {
	parts := make([]string, len(m.Processes))
	for i, p := range m.Processes {
		parts[i] = fmt.Sprintf("%s %s", p.Name, MB(p.RSSkB))
	}
	s := fmt.Sprintf("%s RSS in all (%s)", MB(m.TotalkB()), strings.Join(parts, ", "))
	if pss := m.TotalPSSkB(); pss > 0 {
		s += fmt.Sprintf("; %s PSS", MB(pss))
	}
	return s
}

// MB formats a size in kB as whole megabytes (MiB).
func MB(kB int) string {
	return fmt.Sprintf("%.0f MB", float64(kB)/1024)
}

// TreeMemory reads the resident memory of root and its descendants (for a
// desktop window: the app and WebKit's web and network processes) from
// procDir, which is /proc outside tests. Processes that end while it reads
// are left out; a root that is not there is an error.
func TreeMemory(procDir string, root int) (Memory, error) {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return Memory{}, err
	}
	parents := make(map[int]int)
	all := make(map[int]Process)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join(procDir, e.Name(), "status"))
		if err != nil {
			continue // ended meanwhile, or not ours to read
		}
		p := Process{PID: pid}
		for line := range strings.SplitSeq(string(status), "\n") {
			k, v, _ := strings.Cut(line, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			switch k {
			case "PPid":
				parents[pid], _ = strconv.Atoi(f[0])
			case "VmRSS":
				p.RSSkB, _ = strconv.Atoi(f[0])
			case "Name":
				p.Name = f[0]
			}
		}
		p.PSSkB = rollupPSS(filepath.Join(procDir, e.Name(), "smaps_rollup"))
		if len(p.Name) == 15 { // the kernel cuts names at 15 bytes
			p.Name = fullName(filepath.Join(procDir, e.Name(), "cmdline"), p.Name)
		}
		all[pid] = p
	}
	if _, ok := all[root]; !ok {
		return Memory{}, fmt.Errorf("process %d is not running", root)
	}
	inTree := func(pid int) bool {
		seen := 0
		for p := pid; p > 0 && seen <= len(parents); p = parents[p] {
			if p == root {
				return true
			}
			seen++ // a loop in bad input ends here
		}
		return false
	}
	var m Memory
	for pid, p := range all {
		if inTree(pid) {
			m.Processes = append(m.Processes, p)
		}
	}
	sort.Slice(m.Processes, func(i, j int) bool {
		a, b := m.Processes[i], m.Processes[j]
		if (a.PID == root) != (b.PID == root) {
			return a.PID == root
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.PID < b.PID
	})
	return m, nil
}

// fullName returns the file name of the program in cmdline when it begins
// with the kernel's cut name, and name otherwise ("WebKitWebProcess" for
// "WebKitWebProces").
func fullName(cmdline, name string) string {
	b, err := os.ReadFile(cmdline)
	if err != nil {
		return name
	}
	argv0, _, _ := strings.Cut(string(b), "\x00")
	if base := filepath.Base(argv0); strings.HasPrefix(base, name) {
		return base
	}
	return name
}

// rollupPSS reads the Pss line of a smaps_rollup file, in kB; 0 when it
// cannot (an older kernel, another user's process).
func rollupPSS(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}
