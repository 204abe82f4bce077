// Package fs holds the file tools: Read, Write, Edit, Glob, Grep and LS,
// and the sandbox they share. A Workspace is the folder an agent works in;
// when restricted, every file operation goes through an os.Root, so no
// path, symlink or swapped-in link leaves it, and OpenRegular never blocks
// on a FIFO or device. Its ReadTracker makes Write and Edit refuse a file
// the agent has not read, or one that changed since. Grep runs ripgrep when
// it is on PATH (through proc.Children) and a Go engine otherwise; both
// see the same files (gitignore.go, the walk in glob.go) and the same
// pattern (compileGrepPattern), so they give the same output.
package fs
