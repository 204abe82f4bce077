//go:build !desktop

package main

import (
	"context"
	"fmt"
	"io"
)

// runDesktop explains that this binary has no window and how to get one.
func runDesktop(_ context.Context, stderr io.Writer) int {
	fmt.Fprint(stderr, `This tinyelf binary was built without the desktop window.
Build it with the window:  go build -tags desktop,production,webkit2_41 -o build/bin/tinyelf .
  (or simply: bash scripts/run.sh)
Or use TinyElf in a browser: tinyelf serve
`)
	return exitError
}
