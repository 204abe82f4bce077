//go:build desktop && !linux

package main

import (
	"context"

	wailsruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// quitWindow closes the window through Wails, whose Windows and macOS
// frontends post the quit to their UI thread themselves; Wails runs
// OnBeforeClose (beforeClose) on the way.
func quitWindow(wctx context.Context, _ func(context.Context) bool) {
	wailsruntime.Quit(wctx)
}
