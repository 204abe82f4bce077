package usertools

import (
	"embed"
	"io/fs"
)

//go:embed skill
var skillFiles embed.FS

// SkillLabel names the tree SkillFS returns among the builtin skills
// (their root reads "builtin:usertools").
const SkillLabel = "usertools"

// SkillFS returns the builtin skill folders this package brings, in the
// Agent Skills format: tool-creator/SKILL.md teaches the model the user
// tool formats, the folders, refresh_tools and share_tool (seed 002's steps
// and validation checklist). The skills package adds it to its builtin
// skills.
func SkillFS() fs.FS {
	sub, err := fs.Sub(skillFiles, "skill")
	if err != nil {
		panic(err) // the folder is embedded; it is always there
	}
	return sub
}
