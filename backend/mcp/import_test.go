package mcp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// importExisting are the servers the golden imports are made against.
var importExisting = []config.MCPServer{
	{Name: "github", Type: TypeStdio, Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}},
	{Name: "remote", Type: TypeHTTP, URL: "https://mcp.example.com/mcp"},
}

// importEnv is the environment the golden imports see.
var importEnv = envMap(map[string]string{"GITHUB_TOKEN": "ghp_test", "HOME": "/home/me"})

// TestImportGolden imports each testdata/import/*.json config and compares
// the report and the servers with its .golden file (go test -update
// rewrites them).
func TestImportGolden(t *testing.T) {
	t.Parallel()
	inputs, err := filepath.Glob(filepath.Join("testdata", "import", "*.json"))
	must(t, err)
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden.json") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			must(t, err)
			servers, rep, err := ImportServers(data, importExisting, importEnv)
			out := map[string]any{"report": rep, "servers": servers}
			if err != nil {
				out = map[string]any{"error": err.Error()}
			}
			got, err := json.MarshalIndent(out, "", "  ")
			must(t, err)
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, ".json") + ".golden.json"
			if *update {
				must(t, os.WriteFile(golden, got, 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("import of %s differs from %s:\n%s", in, golden, got)
			}
		})
	}
}

// TestImportFile imports into a settings store and shows that a second
// import of the same file skips everything.
func TestImportFile(t *testing.T) {
	t.Parallel()
	store, err := config.OpenStore(filepath.Join(t.TempDir(), config.SettingsFile))
	must(t, err)
	in := filepath.Join("testdata", "import", "vscode.json")
	rep, err := ImportFile(store, in, importEnv)
	must(t, err)
	if len(rep.Imported) != 2 || len(store.Get().MCPServers) != 2 {
		t.Fatalf("first import: %+v, store %+v", rep, store.Get().MCPServers)
	}
	rep, err = ImportFile(store, in, importEnv)
	must(t, err)
	if len(rep.Imported) != 0 || len(rep.Skipped) != 2 || len(store.Get().MCPServers) != 2 {
		t.Errorf("second import: %+v", rep)
	}
	if _, err := ImportFile(store, filepath.Join("testdata", "import", "not_json.json"), importEnv); err == nil {
		t.Error("importing a broken file succeeded")
	}
}
