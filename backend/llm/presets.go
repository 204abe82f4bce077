package llm

// The adapter kinds a Config can choose.
const (
	// KindOpenAI is the OpenAI-compatible chat completions API.
	KindOpenAI = "openai"
	// KindAnthropic is Anthropic's Messages API.
	KindAnthropic = "anthropic"
)

// Preset is a known provider: where its API lives and what it needs. The
// settings screen lists them; Config.Preset names one.
type Preset struct {
	// Name is the preset's ID ("openai", "ollama", ...).
	Name string `json:"name"`
	// DisplayName is what the user reads.
	DisplayName string `json:"displayName"`
	// Kind is the adapter: KindOpenAI or KindAnthropic.
	Kind string `json:"kind"`
	// BaseURL is the default base URL; empty for "custom", which needs one.
	BaseURL string `json:"baseUrl"`
	// NeedsKey says whether the API refuses calls without an API key.
	NeedsKey bool `json:"needsKey"`
	// KeyEnv is the environment variable that conventionally holds the key.
	// This package never reads it; the settings layer may.
	KeyEnv string `json:"keyEnv,omitempty"`
	// Local marks a server expected on this machine (Ollama, LM Studio).
	Local bool `json:"local,omitempty"`
	// Models are suggestions for the model field, the first being the
	// default when Config.Model is empty.
	Models []string `json:"models,omitempty"`
	// unreachableHint is appended when the server cannot be reached.
	unreachableHint string
}

// presets is the catalogue, in the order the settings screen shows it.
var presets = []Preset{
	{
		Name: "openai", DisplayName: "OpenAI", Kind: KindOpenAI,
		BaseURL: "https://api.openai.com/v1", NeedsKey: true, KeyEnv: "OPENAI_API_KEY",
		Models: []string{"gpt-5", "gpt-5-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "o4-mini"},
	},
	{
		Name: "anthropic", DisplayName: "Anthropic", Kind: KindAnthropic,
		BaseURL: "https://api.anthropic.com", NeedsKey: true, KeyEnv: "ANTHROPIC_API_KEY",
		Models: []string{"claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "claude-3-5-haiku-latest"},
	},
	{
		Name: "ollama", DisplayName: "Ollama (local)", Kind: KindOpenAI,
		BaseURL: "http://127.0.0.1:11434/v1", Local: true,
		Models:          []string{"qwen3", "llama3.1", "qwen2.5-coder", "gpt-oss:20b", "mistral"},
		unreachableHint: "is Ollama running? Start it with `ollama serve`",
	},
	{
		Name: "lmstudio", DisplayName: "LM Studio (local)", Kind: KindOpenAI,
		BaseURL: "http://127.0.0.1:1234/v1", Local: true,
		unreachableHint: "is LM Studio's local server started (Developer tab)?",
	},
	{
		Name: "openrouter", DisplayName: "OpenRouter", Kind: KindOpenAI,
		BaseURL: "https://openrouter.ai/api/v1", NeedsKey: true, KeyEnv: "OPENROUTER_API_KEY",
		Models: []string{"anthropic/claude-sonnet-4.5", "openai/gpt-5", "google/gemini-2.5-pro", "deepseek/deepseek-chat"},
	},
	{
		Name: "deepseek", DisplayName: "DeepSeek", Kind: KindOpenAI,
		BaseURL: "https://api.deepseek.com/v1", NeedsKey: true, KeyEnv: "DEEPSEEK_API_KEY",
		Models: []string{"deepseek-chat", "deepseek-reasoner"},
	},
	{
		Name: "xai", DisplayName: "xAI", Kind: KindOpenAI,
		BaseURL: "https://api.x.ai/v1", NeedsKey: true, KeyEnv: "XAI_API_KEY",
		Models: []string{"grok-4", "grok-3-mini", "grok-code-fast-1"},
	},
	{
		Name: "gemini", DisplayName: "Google Gemini", Kind: KindOpenAI,
		BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai/", NeedsKey: true, KeyEnv: "GEMINI_API_KEY",
		Models: []string{"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"},
	},
	{
		Name: "custom", DisplayName: "Custom (OpenAI-compatible)", Kind: KindOpenAI,
	},
}

// Presets returns the known providers, in display order. The slice is a
// copy the caller may keep.
func Presets() []Preset {
	out := make([]Preset, len(presets))
	for i, p := range presets {
		p.Models = append([]string(nil), p.Models...)
		out[i] = p
	}
	return out
}

// LookupPreset returns the preset with the given name.
func LookupPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			p.Models = append([]string(nil), p.Models...)
			return p, true
		}
	}
	return Preset{}, false
}
