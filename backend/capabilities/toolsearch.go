package capabilities

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"tinyelf/backend/tools"
)

// ToolSearchName is the model-facing name of the search tool.
const ToolSearchName = "ToolSearch"

//go:embed toolsearch.md
var toolSearchDescription string

// SearchRequest is one ToolSearch call.
type SearchRequest struct {
	Query string `json:"query"`
	Kind  Kind   `json:"kind,omitempty"`
	Limit int    `json:"limit,omitempty"`
	Regex bool   `json:"regex,omitempty"`
}

// SearchItem is one hit as the model (and the UI) reads it.
type SearchItem struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    Kind   `json:"kind"`
	Source  string `json:"source"`
	Risk    Risk   `json:"risk"`
	Summary string `json:"summary"`
	// Why says what matched.
	Why string `json:"why"`
	// Use says how to use it ("call it next", "read_skill(name: …)").
	Use string `json:"use"`
	// State is its standing before the search.
	State  State `json:"state"`
	Tokens int   `json:"tokens"`
}

// SearchResult is what a search found.
type SearchResult struct {
	Query string       `json:"query"`
	Items []SearchItem `json:"items"`
	// Note tells of a cut query or hits left out for the budget.
	Note string `json:"note,omitempty"`
}

// Searcher answers ToolSearch for the session a call belongs to. The engine
// puts one in each call's context.
type Searcher interface {
	SearchCapabilities(ctx context.Context, req SearchRequest) (SearchResult, error)
}

type searcherKey struct{}

// WithSearcher returns a context whose ToolSearch calls s answers.
func WithSearcher(ctx context.Context, s Searcher) context.Context {
	return context.WithValue(ctx, searcherKey{}, s)
}

// SearcherFrom returns the context's searcher.
func SearcherFrom(ctx context.Context) (Searcher, bool) {
	s, ok := ctx.Value(searcherKey{}).(Searcher)
	return s, ok
}

// Find searches a session's view the way ToolSearch does: only what the
// policy would let the model see (nothing plan mode, the agent's profile or
// a deny rule hides; no broken descriptor; no channel), and tools only as
// far as the context budget allows. It changes nothing: Discovery.PromoteHits
// makes the tool hits visible.
func Find(v *View, in Inputs, vs *VisibleSet, req SearchRequest) (SearchResult, error) {
	res := SearchResult{Query: req.Query}
	admit := func(e Entry) bool {
		if e.Problem != "" || e.Kind == KindChannel || e.Name == ToolSearchName {
			return false
		}
		if e.Kind == KindTool {
			why, _ := hiddenReason(&e, in)
			return why == ""
		}
		return true
	}
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	// Ask for a few more than the limit, so the budget can skip a large
	// tool without leaving the list short.
	hits, note, err := v.Search(Query{Text: req.Query, Kind: req.Kind, Limit: min(limit+5, MaxLimit), Regex: req.Regex, Admit: admit})
	res.Note = note
	if err != nil {
		return res, err
	}
	budget := searchBudget(in, vs)
	spent, skipped := 0, 0
	for _, h := range hits {
		if len(res.Items) == limit {
			break
		}
		e := h.Entry
		state := StateAvailable
		if vs != nil {
			if d, ok := vs.Decision(e.ID); ok {
				state = d.State
			}
		}
		if e.Kind == KindTool && state != StateVisible {
			if spent+e.FullTokens > budget && len(res.Items) > 0 {
				skipped++
				continue
			}
			spent += e.FullTokens
		}
		res.Items = append(res.Items, SearchItem{
			ID: e.ID, Name: e.Name, Kind: e.Kind, Source: e.Source, Risk: e.Risk, Summary: e.Summary,
			Why: h.Why, Use: useHint(e, state), State: state, Tokens: e.FullTokens,
		})
	}
	if skipped > 0 {
		res.Note = joinNote(res.Note, fmt.Sprintf("%d more matching tools were left out to stay within the context budget; search more precisely to get them", skipped))
	}
	return res, nil
}

// searchBudget is how many tokens of new tool definitions one search may
// load: a quarter of what is left of the window, at least 1,500.
func searchBudget(in Inputs, vs *VisibleSet) int {
	window := in.ContextWindow
	if window <= 0 {
		window = 128_000
	}
	left := window - in.ContextUsed
	if vs != nil && in.ContextUsed == 0 {
		left -= vs.ToolTokens
	}
	return max(left/4, 1500)
}

func useHint(e Entry, state State) string {
	switch e.Kind {
	case KindTool:
		if state == StateVisible {
			return "already loaded: call " + e.Name
		}
		return "loaded for your next step: call " + e.Name
	case KindSkill:
		return fmt.Sprintf("read_skill(name: %q) loads its instructions", e.Name)
	case KindResource:
		return fmt.Sprintf("read_mcp_resource(server: %q, uri: %q) reads it", e.Server, e.Name)
	case KindPrompt:
		return fmt.Sprintf("slash_command(command: %q) runs it", e.Name)
	}
	return ""
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// PromoteHits makes a search's tool hits visible from the next model call
// on, with the query as the reason, and returns their names.
func (d *Discovery) PromoteHits(res SearchResult) []string {
	var out []string
	for _, it := range res.Items {
		if it.Kind != KindTool || it.State == StateVisible {
			continue
		}
		d.Promote(it.Name, fmt.Sprintf("found by ToolSearch %q", cutQuery(res.Query)))
		out = append(out, it.Name)
	}
	return out
}

func cutQuery(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	if r := []rune(q); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return q
}

// toolSearch is the ToolSearch tool.
type toolSearch struct{}

// NewToolSearch returns the ToolSearch tool. It answers through the
// Searcher in the call's context; without one it says search is not
// available.
func NewToolSearch() tools.Tool { return toolSearch{} }

var toolSearchSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"query":{"type":"string","description":"What you need, or a name (a regular expression with regex)"},` +
	`"kind":{"type":"string","enum":["any","tool","skill","resource","prompt"]},` +
	`"limit":{"type":"integer","minimum":1,"maximum":25,"description":"Default 5"},` +
	`"regex":{"type":"boolean"}},` +
	`"required":["query"]}`)

func (toolSearch) Info() tools.Info {
	return tools.Info{
		Name: ToolSearchName, Description: strings.TrimSpace(toolSearchDescription), Parameters: toolSearchSchema,
		ReadOnly: true, Safe: true, Title: "Tool search",
	}
}

func (toolSearch) Execute(ctx context.Context, params map[string]any) (tools.Result, error) {
	query := tools.String(params, "query", "")
	kind, err := ParseKind(tools.String(params, "kind", ""))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	s, ok := SearcherFrom(ctx)
	if !ok {
		return tools.Errorf("ToolSearch is not available here: it searches an agent session's capabilities."), nil
	}
	res, err := s.SearchCapabilities(ctx, SearchRequest{
		Query: query, Kind: kind, Limit: tools.Int(params, "limit", 0), Regex: tools.Bool(params, "regex", false),
	})
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	out := tools.Text(FormatResult(res))
	ids := make([]string, len(res.Items))
	for i, it := range res.Items {
		ids[i] = it.ID
	}
	out.Meta = map[string]any{"capabilityHits": ids}
	return out, nil
}

// FormatResult renders a search result as the model reads it.
func FormatResult(res SearchResult) string {
	var sb strings.Builder
	if len(res.Items) == 0 {
		sb.WriteString("No capability matches. Try other words (what the tool does, not how it is named), a broader kind, or regex: true.")
	} else {
		fmt.Fprintf(&sb, "%d found:\n", len(res.Items))
		for i, it := range res.Items {
			fmt.Fprintf(&sb, "%d. %s [%s, %s", i+1, it.Name, it.Kind, it.Source)
			if it.Risk == RiskHigh {
				sb.WriteString(", high risk")
			}
			sb.WriteString("]")
			if it.Summary != "" {
				sb.WriteString(" — " + it.Summary)
			}
			if it.Why != "" {
				sb.WriteString(" (matched " + it.Why + ")")
			}
			sb.WriteString("\n   " + it.Use + "\n")
		}
	}
	if res.Note != "" {
		sb.WriteString("\nNote: " + res.Note + ".")
	}
	return strings.TrimRight(sb.String(), "\n")
}
