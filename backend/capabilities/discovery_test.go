package capabilities

import (
	"fmt"
	"testing"
)

// TestDiscoveryIsBounded: a session that promotes, uses and miscalls more
// tools than maxRemembered keeps the latest of each, not all of them.
func TestDiscoveryIsBounded(t *testing.T) {
	t.Parallel()
	d := NewDiscovery()
	const n = maxRemembered + 300
	for i := range n {
		name := fmt.Sprintf("mcp__s__t%04d", i)
		d.Promote(name, "found")
		d.NoteCall(name, false)
		d.NoteCall(name+"_bad", true)
	}
	last := fmt.Sprintf("mcp__s__t%04d", n-1)
	st := d.snapshot()
	if len(st.promoted) > maxRemembered || len(st.used) > maxRemembered || len(st.failures) > maxRemembered {
		t.Errorf("remembers %d promoted, %d used, %d failing tools; want at most %d each", len(st.promoted), len(st.used), len(st.failures), maxRemembered)
	}
	if _, ok := d.Promoted(last); !ok || !st.used[last] || st.failures[last+"_bad"] != 1 {
		t.Errorf("the latest tool was forgotten")
	}
	if _, ok := d.Promoted("mcp__s__t0000"); ok || st.used["mcp__s__t0000"] {
		t.Errorf("the oldest tool is still remembered")
	}
	// A promotion renewed later is not forgotten as an old one.
	d = NewDiscovery()
	d.Promote("kept", "first")
	for i := range maxRemembered {
		d.Promote(fmt.Sprint("t", i), "found")
		if i == maxRemembered/2 {
			d.Promote("kept", "again")
		}
	}
	if _, ok := d.Promoted("kept"); !ok {
		t.Error("a promotion renewed half-way was forgotten first")
	}
}
