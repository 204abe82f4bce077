package llm

import (
	"slices"
	"strings"
)

// ImageMIMEs are the image types both wire formats accept as image content.
var ImageMIMEs = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// IsImageMIME reports whether mime is an image type the models take.
func IsImageMIME(mime string) bool {
	return slices.Contains(ImageMIMEs, strings.ToLower(strings.TrimSpace(mime)))
}

// visionPrefixes are model ID prefixes of models that take images, after
// the vendor prefix and the Ollama tag are dropped; notVision are prefixes
// that look alike but do not (checked first).
var (
	notVision = []string{
		"o1-mini", "o1-preview", "o3-mini", "gpt-4-32k", "gpt-4-0", "gpt-3.5", "gpt-oss",
		"claude-2", "claude-instant", "gemma3:1b", "gemma3-1b", "deepseek", "codestral",
	}
	visionPrefixes = []string{
		// OpenAI
		"gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-4-turbo", "gpt-4-vision", "gpt-5", "o1", "o3", "o4",
		// Anthropic: every Claude 3 and later
		"claude-3", "claude-sonnet-4", "claude-opus-4", "claude-haiku-4", "claude-4",
		// Google
		"gemini", "gemma3",
		// xAI
		"grok-4", "grok-2-vision", "grok-vision",
		// Open models, as Ollama, LM Studio and the hosted APIs name them
		"llava", "bakllava", "llama3.2-vision", "llama-3.2-11b-vision", "llama-3.2-90b-vision", "llama4", "llama-4",
		"qwen2.5vl", "qwen2.5-vl", "qwen2-vl", "qwen3-vl", "qwen-vl", "qvq",
		"minicpm-v", "moondream", "pixtral", "mistral-small3.1", "mistral-small3.2", "mistral-small-3.1",
		"mistral-small-3.2", "mistral-medium", "granite3.2-vision", "internvl",
	}
)

// AcceptsImages reports whether a model takes image content, by its ID: the
// models TinyElf knows to (GPT-4o and later, Claude 3 and later, Gemini,
// the open vision models). Unknown models count as text-only, so an image
// is refused with a clear message rather than sent and rejected (or
// silently ignored) by the server; a provider's settings can say otherwise
// (config.Provider.Images).
func AcceptsImages(model string) bool {
	id := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(id, "/"); i >= 0 {
		id = id[i+1:]
	}
	for _, p := range notVision {
		if strings.HasPrefix(id, p) {
			return false
		}
	}
	if i := strings.Index(id, ":"); i >= 0 {
		id = id[:i]
	}
	for _, p := range visionPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return strings.Contains(id, "vision") || strings.Contains(id, "-vl")
}
