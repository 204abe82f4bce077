package fs

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"tinyelf/backend/tools"
)

func rgAvailable() bool {
	_, err := exec.LookPath("rg")
	return err == nil
}

// searchEscapeCases adds Glob and both Grep engines to the escape battery.
func searchEscapeCases(ws *Workspace) []escapeCase {
	pathArg := func(extra map[string]any) func(p string) map[string]any {
		return func(p string) map[string]any {
			m := map[string]any{"path": p}
			for k, v := range extra {
				m[k] = v
			}
			return m
		}
	}
	cases := []escapeCase{
		{NewGlob(ws), pathArg(map[string]any{"pattern": "**/*"})},
		{NewGrep(ws, GrepOptions{PureGo: true}), pathArg(map[string]any{"pattern": "SECRET"})},
	}
	if rgAvailable() {
		cases = append(cases, escapeCase{NewGrep(ws, GrepOptions{}), pathArg(map[string]any{"pattern": "SECRET"})})
	}
	return cases
}

// TestSearchPatternsStayInside tries to leave the workspace through the
// pattern and include arguments rather than the path.
func TestSearchPatternsStayInside(t *testing.T) {
	t.Parallel()
	f := newEscapeFixture(t)
	calls := []struct {
		tool tools.Tool
		args map[string]any
	}{}
	for _, p := range []string{"../outside/*", "../**/secret.txt", "/etc/*", f.outside + "/*", "link-out/*", "**/secret.txt", "sub/uplink/**", "{../outside,.}/*"} {
		calls = append(calls, struct {
			tool tools.Tool
			args map[string]any
		}{NewGlob(f.ws), map[string]any{"pattern": p}})
	}
	for _, engine := range []GrepOptions{{PureGo: true}, {}} {
		if !engine.PureGo && !rgAvailable() {
			continue
		}
		for _, inc := range []string{"../outside/*", "*", "**/secret.txt", "/etc/passwd"} {
			calls = append(calls, struct {
				tool tools.Tool
				args map[string]any
			}{NewGrep(f.ws, engine), map[string]any{"pattern": "SECRET|root:", "include": inc}})
		}
	}
	for _, c := range calls {
		args, _ := json.Marshal(c.args)
		res := execTool(t, c.tool, string(args))
		for _, leak := range []string{"SECRET outside", "SECRET deeper", "SECRET sibling", "root:x:", "outside/secret.txt", "link-out/secret", "uplink/secret", "deeper/secret.txt"} {
			if strings.Contains(res.Content, leak) {
				t.Errorf("%s(%s) reached outside (%q):\n%s", c.tool.Info().Name, args, leak, res.Content)
			}
		}
	}
}
