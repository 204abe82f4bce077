package skills

import (
	"embed"
	"io/fs"
)

// builtinFiles holds TinyElf's own skills, one folder each under builtin/.
//
//go:embed builtin
var builtinFiles embed.FS

// builtinSkills returns the tree of TinyElf's own skills.
func builtinSkills() fs.FS {
	sub, err := fs.Sub(builtinFiles, "builtin")
	if err != nil {
		panic("skills: builtin tree: " + err.Error()) // the embed directive guarantees the folder
	}
	return sub
}
