package main

import (
	"strings"
	"testing"

	"tinyelf/backend/api"
)

func TestCloseGuard(t *testing.T) {
	t.Parallel()
	var g closeGuard
	if g.ask([]string{"Fix the tests"}) {
		t.Error("asked before the page could: a page that never loaded would keep the window open")
	}
	g.setReady()
	if g.ask(nil) {
		t.Error("asked with nothing running")
	}
	if !g.ask([]string{"Fix the tests"}) {
		t.Error("closed on a running task without asking")
	}
	g.force()
	if g.ask([]string{"Fix the tests"}) {
		t.Error("asked again after the user confirmed (or on SIGTERM)")
	}
}

func TestCloseNote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n      int
		asking bool
		want   string
	}{
		{0, false, ""},
		{0, true, ""},
		{1, true, "tinyelf: closing the window while 1 task runs: asking first"},
		{1, false, "tinyelf: closing the window while 1 task runs: it stops"},
		{3, true, "tinyelf: closing the window while 3 tasks run: asking first"},
		{3, false, "tinyelf: closing the window while 3 tasks run: they stop"},
	}
	for _, tt := range tests {
		if got := closeNote(tt.n, tt.asking); got != tt.want {
			t.Errorf("closeNote(%d, %v) = %q, want %q", tt.n, tt.asking, got, tt.want)
		}
	}
}

func TestInstanceID(t *testing.T) {
	t.Parallel()
	a, b := instanceID("/home/u/.config/tinyelf"), instanceID("/tmp/test-home")
	if a == b || a != instanceID("/home/u/.config/tinyelf") || !strings.HasPrefix(a, "tinyelf-") {
		t.Errorf("instanceID: %q %q", a, b)
	}
}

func TestPlaceable(t *testing.T) {
	t.Parallel()
	screens := []screen{{1920, 1080}}
	for _, c := range []struct {
		w    api.WindowState
		want bool
	}{
		{api.WindowState{X: 100, Y: 80, Width: 1200, Height: 800}, true},
		{api.WindowState{X: 2500, Y: 80, Width: 1200, Height: 800}, false}, // a monitor that is gone
		{api.WindowState{X: -1150, Y: 80, Width: 1200, Height: 800}, false},
		{api.WindowState{X: 10, Y: -40, Width: 1200, Height: 800}, false}, // title bar off screen
	} {
		if got := placeable(c.w, screens); got != c.want {
			t.Errorf("placeable(%+v) = %v, want %v", c.w, got, c.want)
		}
	}
	if w, h := windowSize(&api.WindowState{Width: 300, Height: 200}); w != minWidth || h != minHeight {
		t.Errorf("windowSize of a tiny window = %dx%d", w, h)
	}
	if w, h := windowSize(nil); w != defaultWidth || h != defaultHeight {
		t.Errorf("default size = %dx%d", w, h)
	}
}
