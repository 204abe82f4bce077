package engine

import (
	"strings"

	"tinyelf/backend/llm"
)

// price is USD per million tokens.
type price struct{ in, out, cacheRead float64 }

// prices are list prices of common models, matched by prefix (longest
// first). Unknown models cost 0: the UI then shows tokens only.
var prices = []struct {
	prefix string
	p      price
}{
	{"gpt-4o-mini", price{0.15, 0.6, 0.075}},
	{"gpt-4o", price{2.5, 10, 1.25}},
	{"gpt-4.1-nano", price{0.1, 0.4, 0.025}},
	{"gpt-4.1-mini", price{0.4, 1.6, 0.1}},
	{"gpt-4.1", price{2, 8, 0.5}},
	{"gpt-5-nano", price{0.05, 0.4, 0.005}},
	{"gpt-5-mini", price{0.25, 2, 0.025}},
	{"gpt-5", price{1.25, 10, 0.125}},
	{"o4-mini", price{1.1, 4.4, 0.275}},
	{"o3", price{2, 8, 0.5}},
	{"claude-opus-4", price{15, 75, 1.5}},
	{"claude-sonnet-4", price{3, 15, 0.3}},
	{"claude-3-7-sonnet", price{3, 15, 0.3}},
	{"claude-3-5-haiku", price{0.8, 4, 0.08}},
	{"claude-haiku-4", price{1, 5, 0.1}},
	{"deepseek-chat", price{0.27, 1.1, 0.07}},
	{"deepseek-reasoner", price{0.55, 2.19, 0.14}},
}

// Cost returns the list price in USD of a call's usage, or 0 for a model
// whose price is unknown (local models cost nothing anyway).
func Cost(model string, u llm.Usage) float64 {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" on OpenRouter
	}
	best := -1
	for i, p := range prices {
		if strings.HasPrefix(m, p.prefix) && (best < 0 || len(p.prefix) > len(prices[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return 0
	}
	p := prices[best].p
	// Usage.InputTokens excludes cached tokens for both wire formats.
	return (float64(u.InputTokens)*p.in + float64(u.CacheReadTokens)*p.cacheRead + float64(u.CacheWriteTokens)*p.in*1.25 + float64(u.OutputTokens)*p.out) / 1e6
}
