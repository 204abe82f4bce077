//go:build desktop || embedui

package main

import (
	"embed"
	"io/fs"
)

// frontendDist is the built frontend (npm run build in frontend/). Only the
// desktop build (and an `embedui` build of the browser UI) embeds it, so a
// clean clone vets and tests without a frontend build.
//
//go:embed all:frontend/dist
var frontendDist embed.FS

func init() {
	if sub, err := fs.Sub(frontendDist, "frontend/dist"); err == nil {
		uiAssets = sub
	}
}
