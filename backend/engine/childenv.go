package engine

import (
	"os"
	"path/filepath"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/proc"
	"tinyelf/backend/web"
)

// ChildSecrets returns what no child process (Bash, MCP servers, hooks, user
// tools) may inherit, given the effective settings (stored, with the
// environment's providers added): the variables TinyElf reads its own
// credentials from (the web search keys among them), the key variable of
// every configured provider's preset
// (OPENROUTER_API_KEY for an OpenRouter provider), and every secret value the
// settings hold, under whatever name the user exported it.
func ChildSecrets(st config.Settings) proc.Secrets {
	names := config.SecretEnvNames()
	for name, env := range web.SearchKeyEnv {
		if name != web.SearchSearXNG { // a URL, not a key
			names = append(names, env)
		}
	}
	for _, p := range st.Providers {
		if pre, ok := llm.LookupPreset(p.Preset); ok && pre.KeyEnv != "" {
			names = append(names, pre.KeyEnv)
		}
	}
	return proc.Secrets{Names: names, Values: st.SecretValues()}
}

// ChildEnviron returns the environment child processes start from: the
// user's environment without ChildSecrets(st).
func ChildEnviron(st config.Settings) []string {
	return proc.CleanEnv(os.Environ(), ChildSecrets(st))
}

// defaultChildEnviron is the environment when the caller knows no settings:
// at least TinyElf's own key variables are left out.
func defaultChildEnviron() []string {
	return proc.CleanEnv(os.Environ(), proc.Secrets{Names: config.SecretEnvNames()})
}

// NewChildren returns the owner of the child processes one surface starts:
// their groups recorded under the data dir (dataDir "" records nothing),
// and kept from each child, whoever starts it and whatever environment it
// passes, the secrets the current settings and environment name
// (ChildSecrets: TinyElf's key variables by name, every key the settings
// hold by value).
func NewChildren(dataDir string, settings *config.Store, getenv func(string) string) *proc.Children {
	root := ""
	if dataDir != "" {
		root = filepath.Join(dataDir, proc.ChildrenFolder)
	}
	return proc.NewChildren(root, func() proc.Secrets {
		return ChildSecrets(settings.Get().WithEnvironment(getenv))
	})
}
