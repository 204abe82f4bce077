// Package shell holds the Bash tool: it runs `bash -c` in the workspace
// folder after guard.Check has let the command through, as a child of
// proc.Children (a clean environment, a process group of its own, gone
// with TinyElf), with its output bounded head and tail. The guard and the
// Bash permission rules are package guard; the walker under them is
// package walk.
package shell
