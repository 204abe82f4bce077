package mcp

import "tinyelf/backend/version"

// ClientVersion is the TinyElf version every MCP connection reports in
// clientInfo.version when Options.ClientVersion is empty, and builtin
// servers in serverInfo: this build's version (version.Version(), set at
// build time; version.Development for a build given none). It is the one
// place the MCP code reads TinyElf's version from.
func ClientVersion() string { return version.Version() }
