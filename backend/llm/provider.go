package llm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config says which model API to talk to and how. The zero value of each
// field means "the preset's default".
type Config struct {
	// Name is what Provider.Name reports (default: the preset's name, or
	// the kind).
	Name string `json:"name,omitempty"`
	// Kind is the adapter: KindOpenAI or KindAnthropic (default: the
	// preset's kind, or KindOpenAI). Only the "custom" preset, or no
	// preset, may choose.
	Kind string `json:"kind,omitempty"`
	// Preset names one of Presets() ("openai", "ollama", ...); empty is a
	// custom endpoint.
	Preset string `json:"preset,omitempty"`
	// BaseURL overrides the preset's base URL. For KindOpenAI it ends where
	// /chat/completions begins (https://api.openai.com/v1); for
	// KindAnthropic it is the host root, and a trailing /v1 is dropped.
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKey is sent as a bearer token (OpenAI) or x-api-key (Anthropic);
	// empty sends none. The environment is never consulted.
	APIKey string `json:"apiKey,omitempty"`
	// Model is used when Request.Model is empty (default: the preset's
	// first suggestion).
	Model string `json:"model,omitempty"`
	// Headers are added to every request.
	Headers map[string]string `json:"headers,omitempty"`
	// StallTimeout gives up a streamed answer that sends nothing for this
	// long after its headers (default DefaultStallTimeout; negative: never).
	// The call is then retried like a dropped connection while nothing has
	// been streamed, and fails with a *StallError otherwise.
	StallTimeout time.Duration `json:"stallTimeout,omitempty"`
	// MaxTokens caps the output when Request.MaxTokens is 0. Anthropic
	// requires a cap and gets DefaultAnthropicMaxTokens when this is 0;
	// OpenAI-compatible APIs get none.
	MaxTokens int `json:"maxTokens,omitempty"`
}

// DefaultAnthropicMaxTokens is the output cap sent to Anthropic when neither
// the request nor the config sets one.
const DefaultAnthropicMaxTokens = 8192

// Option adjusts how New builds a provider.
type Option func(*options)

type options struct {
	retry      RetryPolicy
	httpClient *http.Client
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(o *options) { o.retry = p }
}

// WithHTTPClient makes the provider send its requests with c. It must not
// set a Timeout shorter than a long streamed answer.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.httpClient = c }
}

// New returns the provider cfg describes: the Anthropic adapter for
// KindAnthropic, the OpenAI-compatible one otherwise. It fails on an unknown
// preset or kind and on a missing or malformed base URL; it makes no request.
func New(cfg Config, opts ...Option) (Provider, error) {
	ep, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	o := options{retry: DefaultRetryPolicy()}
	for _, opt := range opts {
		opt(&o)
	}
	o.retry = o.retry.withDefaults()
	if o.httpClient == nil {
		o.httpClient = defaultHTTPClient()
	}
	if ep.kind == KindAnthropic {
		return newAnthropic(ep, o), nil
	}
	return newOpenAI(ep, o), nil
}

// endpoint is a resolved Config.
type endpoint struct {
	name      string
	kind      string
	display   string // for messages: "Ollama (local)", "OpenAI", or the base URL
	baseURL   string // without a trailing slash
	apiKey    string
	model     string
	headers   map[string]string
	maxTokens int
	stall     time.Duration // <= 0: no stall watch
	preset    Preset        // zero when none
}

func (c Config) resolve() (endpoint, error) {
	var p Preset
	if c.Preset != "" {
		var ok bool
		if p, ok = LookupPreset(c.Preset); !ok {
			return endpoint{}, fmt.Errorf("unknown provider preset %q", c.Preset)
		}
	}
	kind := c.Kind
	switch {
	case kind == "" && p.Kind != "":
		kind = p.Kind
	case kind == "":
		kind = KindOpenAI
	case p.Kind != "" && p.Name != "custom" && kind != p.Kind:
		return endpoint{}, fmt.Errorf("provider preset %q speaks %q, not %q", p.Name, p.Kind, kind)
	}
	if kind != KindOpenAI && kind != KindAnthropic {
		return endpoint{}, fmt.Errorf("unknown provider kind %q (want %q or %q)", kind, KindOpenAI, KindAnthropic)
	}

	base := c.BaseURL
	if base == "" {
		base = p.BaseURL
	}
	if base == "" && p.Name == "" {
		// No preset: the vendor's own API.
		if kind == KindAnthropic {
			base = "https://api.anthropic.com"
		} else {
			base = "https://api.openai.com/v1"
		}
	}
	if base == "" {
		return endpoint{}, errors.New("the custom provider needs a base URL")
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return endpoint{}, fmt.Errorf("invalid base URL %q: want http(s)://host[:port][/path]", base)
	}
	base = strings.TrimRight(base, "/")
	if kind == KindAnthropic {
		// The SDK adds v1/messages itself.
		base = strings.TrimSuffix(base, "/v1")
	}

	ep := endpoint{
		name: c.Name, kind: kind, display: p.DisplayName, baseURL: base,
		apiKey: c.APIKey, model: c.Model, headers: c.Headers, maxTokens: c.MaxTokens, preset: p,
		stall: c.StallTimeout,
	}
	if ep.stall == 0 {
		ep.stall = DefaultStallTimeout
	}
	if ep.name == "" {
		ep.name = p.Name
	}
	if ep.name == "" {
		ep.name = kind
	}
	if ep.display == "" || p.Name == "custom" {
		ep.display = base
	}
	if ep.model == "" && len(p.Models) > 0 {
		ep.model = p.Models[0]
	}
	return ep, nil
}

// modelFor returns the model a request uses.
func (ep endpoint) modelFor(req Request) (string, error) {
	if req.Model != "" {
		return req.Model, nil
	}
	if ep.model != "" {
		return ep.model, nil
	}
	return "", fmt.Errorf("%s: no model chosen: pick one in Settings", ep.name)
}

// defaultHTTPClient is a client of its own per provider, with no overall
// timeout (answers stream for minutes) but a bound on the wait for headers.
func defaultHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}
