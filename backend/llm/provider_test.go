package llm_test

import (
	"net"
	"net/url"
	"strings"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

func TestPresets(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"openai":     "https://api.openai.com/v1",
		"anthropic":  "https://api.anthropic.com",
		"ollama":     "http://127.0.0.1:11434/v1",
		"lmstudio":   "http://127.0.0.1:1234/v1",
		"openrouter": "https://openrouter.ai/api/v1",
		"deepseek":   "https://api.deepseek.com/v1",
		"xai":        "https://api.x.ai/v1",
		"gemini":     "https://generativelanguage.googleapis.com/v1beta/openai/",
		"custom":     "",
	}
	seen := map[string]bool{}
	for _, p := range llm.Presets() {
		t.Run(p.Name, func(t *testing.T) {
			seen[p.Name] = true
			if base, ok := want[p.Name]; !ok || p.BaseURL != base {
				t.Errorf("BaseURL = %q, want %q", p.BaseURL, base)
			}
			if p.DisplayName == "" {
				t.Errorf("no display name")
			}
			if p.Kind != llm.KindOpenAI && p.Kind != llm.KindAnthropic {
				t.Errorf("Kind = %q", p.Kind)
			}
			if p.Local && p.NeedsKey {
				t.Errorf("a local server that needs a key")
			}
			if p.Name == "custom" {
				return
			}
			if _, err := url.Parse(p.BaseURL); err != nil {
				t.Errorf("BaseURL does not parse: %v", err)
			}
			prov, err := llm.New(llm.Config{Preset: p.Name, APIKey: "k"})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if prov.Name() != p.Name {
				t.Errorf("Name() = %q, want %q", prov.Name(), p.Name)
			}
		})
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("preset %q missing", name)
		}
	}
	// The list is the caller's copy.
	list := llm.Presets()
	list[0].Models[0] = "changed"
	if llm.Presets()[0].Models[0] == "changed" {
		t.Errorf("Presets() shares its slices with the package")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{"unknown preset", llm.Config{Preset: "nope"}, "unknown provider preset"},
		{"unknown kind", llm.Config{Kind: "gemini-native"}, "unknown provider kind"},
		{"kind against preset", llm.Config{Preset: "ollama", Kind: llm.KindAnthropic}, "speaks"},
		{"custom without base URL", llm.Config{Preset: "custom"}, "needs a base URL"},
		{"base URL without scheme", llm.Config{BaseURL: "localhost:11434/v1"}, "invalid base URL"},
		{"base URL of another scheme", llm.Config{BaseURL: "ftp://host/v1"}, "invalid base URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := llm.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) err = %v, want one saying %q", tc.cfg, err, tc.want)
			}
		})
	}
}

func TestNewPicksAdapterAndDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cfg    func(u string) llm.Config
		path   string // where the chat request lands
		model  string
		format string
	}{
		{"custom anthropic kind", func(u string) llm.Config {
			return llm.Config{Preset: "custom", Kind: llm.KindAnthropic, BaseURL: u, Model: "claude-x"}
		}, "/v1/messages", "claude-x", "anthropic"},
		{"anthropic base URL without /v1", func(u string) llm.Config {
			return llm.Config{Preset: "anthropic", BaseURL: strings.TrimSuffix(u, "/v1"), APIKey: "k"}
		}, "/v1/messages", "claude-sonnet-4-5", "anthropic"},
		{"ollama's first suggestion as default model", func(u string) llm.Config {
			return llm.Config{Preset: "ollama", BaseURL: u}
		}, "/v1/chat/completions", "qwen3", "openai"},
		{"base URL without /v1 on an OpenAI-compatible server", func(u string) llm.Config {
			return llm.Config{BaseURL: strings.TrimSuffix(u, "/v1") + "/", Model: "m"}
		}, "/chat/completions", "m", "openai"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			p, err := llm.New(tc.cfg(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := stream(t, p, hello); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			r := srv.ChatRequests()[0]
			if r.Path != tc.path || r.Format() != tc.format {
				t.Errorf("request went to %s (%s), want %s (%s)", r.Path, r.Format(), tc.path, tc.format)
			}
			check(t, r, "model", tc.model)
		})
	}
}

func TestNoModel(t *testing.T) {
	t.Parallel()
	p, err := llm.New(llm.Config{Preset: "lmstudio"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(t.Context(), hello, nil); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("err = %v, want one saying no model is chosen", err)
	}
}

func TestNoKeyFromEnvironment(t *testing.T) {
	// Not parallel: it sets the environment.
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "ok"})
			p := newProvider(t, w, srv, func(c *llm.Config) { c.APIKey = "" })
			if _, _, err := stream(t, p, hello); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			h := srv.ChatRequests()[0].Header
			if got := h.Get("Authorization") + h.Get("X-Api-Key"); got != "" {
				t.Errorf("sent credentials %q taken from the environment, want none", got)
			}
		})
	}
}

func TestContextWindow(t *testing.T) {
	t.Parallel()
	tests := map[string]int{
		"gpt-4o":                     128_000,
		"gpt-4o-mini":                128_000,
		"gpt-4.1-mini":               1_047_576,
		"gpt-5":                      400_000,
		"gpt-4":                      8_192,
		"o3-mini":                    200_000,
		"o4-mini":                    200_000,
		"claude-sonnet-4-5":          200_000,
		"claude-3-5-haiku-latest":    200_000,
		"deepseek-chat":              128_000,
		"deepseek/deepseek-reasoner": 128_000,
		"llama3.1:8b":                131_072,
		"llama3":                     8_192,
		"qwen2.5-coder:7b":           32_768,
		"models/gemini-2.5-pro":      1_048_576,
		"openai/GPT-4o":              128_000,
		"grok-4":                     256_000,
		"something-new":              llm.DefaultContextWindow,
		"":                           llm.DefaultContextWindow,
	}
	for model, want := range tests {
		if got := llm.ContextWindow(model); got != want {
			t.Errorf("ContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestDetectLocal(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.SetModels("llama3.1:8b", "qwen3:4b")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String() + "/v1"
	l.Close()

	found := llm.DetectLocal(t.Context(),
		llm.Config{Preset: "lmstudio", BaseURL: dead},
		llm.Config{Preset: "ollama", BaseURL: srv.URL},
	)
	if len(found) != 1 {
		t.Fatalf("DetectLocal = %+v, want the one server that answers", found)
	}
	d := found[0]
	if d.Preset != "ollama" || d.BaseURL != srv.URL || len(d.Models) != 2 || d.Models[0].ID != "llama3.1:8b" {
		t.Errorf("DetectLocal = %+v, want ollama at %s with its two models", d, srv.URL)
	}
}
