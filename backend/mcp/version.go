package mcp

import (
	"runtime/debug"
	"strings"
)

// devVersion is what ClientVersion reports for a build that carries no
// version of its own (go run, go test, a plain go build of a checkout).
const devVersion = "0.1.0-dev"

// ClientVersion is the TinyElf version every MCP connection reports in
// clientInfo.version when Options.ClientVersion is empty: the module
// version the binary was built as, or devVersion. It is the one place the
// MCP code reads TinyElf's version from; point it at the build's version
// string once there is one.
func ClientVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return devVersion
}
