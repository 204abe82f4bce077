//go:build desktop

// Command hello is the Wails hello-world window that TinyElf's idle memory
// is compared with: one embedded HTML page with no framework, one bound Go
// method (Greet, as in Wails' own templates), and the window settings that
// make the two comparable (the same default size, software rendering). It
// is a benchmark fixture, not part of TinyElf; it needs the desktop build
// tags:
//
//	go build -tags desktop,production,webkit2_41 -o build/bin/wails-hello ./scripts/smoke/hello
//
// bash scripts/smoke.sh memory builds it and measures both windows.
package main

import (
	"embed"
	"fmt"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

//go:embed index.html
var assets embed.FS

// App is the one bound object; the page calls Greet.
type App struct{}

// Greet returns a greeting for name.
func (App) Greet(name string) string {
	return fmt.Sprintf("Hello %s, it's show time!", name)
}

func main() {
	err := wails.Run(&options.App{
		Title:       "Wails hello",
		Width:       1200, // TinyElf's default window size
		Height:      800,
		AssetServer: &assetserver.Options{Assets: assets},
		Bind:        []any{&App{}},
		Linux: &linux.Options{
			ProgramName: "wails-hello",
			// As TinyElf's window: software rendering.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "wails-hello: %v\n", err)
		os.Exit(1)
	}
}
