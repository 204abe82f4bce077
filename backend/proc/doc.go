// Package proc starts and tracks TinyElf's child processes: Bash commands,
// ripgrep, MCP servers, user tools, hooks, skill installs. Children.Command
// (command.go) is the one constructor; every child it makes gets the clean
// environment (CleanEnv, without TinyElf's Secrets), a process group of its
// own, and dies with TinyElf. The package imports no other TinyElf package,
// so every layer that runs a program can use it.
package proc
