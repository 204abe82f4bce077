// Package version says which TinyElf release this binary is. The version is
// set at build time with the linker, never by hand:
//
//	go build -ldflags "-X tinyelf/backend/version.version=0.2.0" .
//
// scripts/lib.sh (tinyelf_version, tinyelf_ldflags) computes it from `git
// describe` for every build path (scripts/build.sh, run.sh, release.sh and
// so the Taskfile). A build given no version is a development build and says
// so. The package imports nothing of TinyElf, so any package may report it.
package version

import (
	"fmt"
	"runtime"
	"strings"
)

// Development is what Version returns for a build that was given no version
// (go build, go run and go test without the linker flag). It is shaped as a
// semantic version (MCP peers may expect one) that sorts before every
// release, and no build script produces it (they never write "-").
const Development = "0.0.0-dev"

// version is set by -ldflags "-X tinyelf/backend/version.version=...".
var version string

// Version returns this build's version: the release ("0.2.0"), a build after
// a release ("0.2.0+5.g1a2b3c4"), a build while no release is tagged yet
// ("0.1.0~dev.303.g7ff6024"), or Development when none was set. It is the
// string TinyElf reports everywhere: --version, Settings → About, MCP
// clientInfo and serverInfo, exported sessions.
func Version() string {
	if v := strings.TrimSpace(version); v != "" && !strings.ContainsAny(v, " \t\r\n") {
		return v
	}
	return Development
}

// IsDevelopment reports whether this build was given no version.
func IsDevelopment() bool { return Version() == Development }

// Line is what `tinyelf --version` prints for this build: LineOf(Version()).
func Line() string { return LineOf(Version()) }

// LineOf is the --version line of a build whose version is v: the version
// with the platform and Go release, or, for Development (or no version at
// all), a sentence saying it is a development build.
func LineOf(v string) string {
	platform := fmt.Sprintf("%s/%s, %s", runtime.GOOS, runtime.GOARCH, runtime.Version())
	if v == "" || v == Development {
		return fmt.Sprintf("tinyelf %s (a development build: no version was set when it was built; %s)", Development, platform)
	}
	return fmt.Sprintf("tinyelf %s (%s)", v, platform)
}
