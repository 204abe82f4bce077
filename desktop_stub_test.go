//go:build !desktop

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunDesktopWithoutWindow(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := runDesktop(context.Background(), &stderr); code == exitOK {
		t.Fatalf("runDesktop = %d, want non-zero", code)
	}
	for _, want := range []string{"built without the desktop window", "desktop,production,webkit2_41", "tinyelf serve"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("message %q does not mention %q", stderr.String(), want)
		}
	}
}
