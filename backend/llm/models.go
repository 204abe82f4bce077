package llm

import "strings"

// DefaultContextWindow is what ContextWindow answers for a model it does not
// know.
const DefaultContextWindow = 128_000

// contextWindows maps model ID prefixes to context windows in tokens. The
// first matching prefix wins, so longer prefixes come before shorter ones.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	// OpenAI
	{"gpt-5", 400_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"gpt-4-32k", 32_768},
	{"gpt-4", 8_192},
	{"gpt-3.5-turbo", 16_385},
	{"gpt-oss", 131_072},
	{"o1-mini", 128_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4", 200_000},
	// Anthropic
	{"claude-", 200_000},
	// Google
	{"gemini-1.5-pro", 2_097_152},
	{"gemini", 1_048_576},
	{"gemma3", 131_072},
	{"gemma2", 8_192},
	{"gemma", 8_192},
	// DeepSeek
	{"deepseek", 128_000},
	// xAI
	{"grok-4", 256_000},
	{"grok-code", 256_000},
	{"grok", 131_072},
	// Open models, as Ollama and LM Studio name them
	{"llama3.1", 131_072},
	{"llama3.2", 131_072},
	{"llama3.3", 131_072},
	{"llama-3.1", 131_072},
	{"llama-3.2", 131_072},
	{"llama-3.3", 131_072},
	{"llama4", 1_048_576},
	{"llama3", 8_192},
	{"llama-3", 8_192},
	{"qwen3", 40_960},
	{"qwen2.5", 32_768},
	{"qwen", 32_768},
	{"mistral-large", 131_072},
	{"mistral-small", 32_768},
	{"mistral-nemo", 131_072},
	{"mistral", 32_768},
	{"mixtral", 32_768},
	{"codestral", 262_144},
	{"phi4", 16_384},
	{"phi3", 131_072},
}

// ContextWindow returns the context window, in tokens, of a model by its ID,
// or DefaultContextWindow when the model is unknown. It ignores case, a
// vendor prefix ("openai/gpt-4o", "models/gemini-2.5-pro") and an Ollama tag
// ("llama3.1:8b"). Local servers may run a model with a smaller window than
// the model supports (Ollama's num_ctx); this is the model's own figure.
func ContextWindow(model string) int {
	id := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(id, "/"); i >= 0 {
		id = id[i+1:]
	}
	if i := strings.Index(id, ":"); i >= 0 {
		id = id[:i]
	}
	for _, w := range contextWindows {
		if strings.HasPrefix(id, w.prefix) {
			return w.tokens
		}
	}
	return DefaultContextWindow
}
