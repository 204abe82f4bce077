package capabilities

import (
	"os"
	"path/filepath"
	"slices"
)

// ProjectType is a kind of project the workspace's files reveal.
type ProjectType struct {
	// Tag is a short word the policy and the search use ("go", "node").
	Tag string `json:"tag"`
	// Label is what the user and the system prompt read ("Go module").
	Label string `json:"label"`
}

// projectMarkers name the project a file or folder at the workspace root
// reveals.
var projectMarkers = []struct {
	path string
	ProjectType
}{
	{"go.mod", ProjectType{"go", "Go module"}},
	{"package.json", ProjectType{"node", "Node.js package"}},
	{"Cargo.toml", ProjectType{"rust", "Rust crate"}},
	{"pyproject.toml", ProjectType{"python", "Python project"}},
	{"requirements.txt", ProjectType{"python", "Python project"}},
	{"setup.py", ProjectType{"python", "Python project"}},
	{"pom.xml", ProjectType{"java", "Maven project"}},
	{"build.gradle", ProjectType{"java", "Gradle project"}},
	{"build.gradle.kts", ProjectType{"java", "Gradle project"}},
	{"Gemfile", ProjectType{"ruby", "Ruby project"}},
	{"composer.json", ProjectType{"php", "PHP project"}},
	{"CMakeLists.txt", ProjectType{"cmake", "CMake project"}},
	{"Makefile", ProjectType{"make", "has a Makefile"}},
	{"Dockerfile", ProjectType{"docker", "has a Dockerfile"}},
	{".github/workflows", ProjectType{"github-actions", "GitHub Actions workflows"}},
	{".gitlab-ci.yml", ProjectType{"gitlab-ci", "GitLab CI pipeline"}},
	{".git", ProjectType{"git", "git repository"}},
}

// DetectProject returns the project types the workspace's root reveals,
// each once, in a stable order. An unreadable folder reveals none.
func DetectProject(dir string) []ProjectType {
	if dir == "" {
		return nil
	}
	var out []ProjectType
	for _, m := range projectMarkers {
		if _, err := os.Lstat(filepath.Join(dir, m.path)); err != nil {
			continue
		}
		if !slices.ContainsFunc(out, func(p ProjectType) bool { return p.Label == m.Label }) {
			out = append(out, m.ProjectType)
		}
	}
	return out
}

// Tags returns the distinct tags of project types.
func Tags(ps []ProjectType) []string {
	var out []string
	for _, p := range ps {
		if !slices.Contains(out, p.Tag) {
			out = append(out, p.Tag)
		}
	}
	return out
}
