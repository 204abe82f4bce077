package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/tools"
)

// A server's requests to the client (elicitation/create,
// sampling/createMessage, roots/list) belong to the tool call that made
// the server ask. Over streamable HTTP the request arrives on the call's
// own response stream, and its context carries the call's (callRef). Over
// stdio, or on the standalone GET stream, it does not: it goes to the
// latest call in flight on that connection, and a request that arrives
// while no call is running has nobody to ask.

// callRef lets a server request reach the context of the call it belongs
// to: the call's context holds a callRef that points at itself.
type callRef struct{ ctx context.Context }

type callRefKey struct{}

// withCallRef returns ctx carrying a reference to itself.
func withCallRef(ctx context.Context) context.Context {
	ref := &callRef{}
	ctx = context.WithValue(ctx, callRefKey{}, ref)
	ref.ctx = ctx
	return ctx
}

// calls tracks a connection's calls in flight, latest last.
type calls struct {
	mu   sync.Mutex
	list []context.Context
}

func (cs *calls) add(ctx context.Context) (remove func()) {
	cs.mu.Lock()
	cs.list = append(cs.list, ctx)
	cs.mu.Unlock()
	return func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if i := slices.Index(cs.list, ctx); i >= 0 {
			cs.list = slices.Delete(cs.list, i, i+1)
		}
	}
}

func (cs *calls) latest() context.Context {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.list) == 0 {
		return nil
	}
	return cs.list[len(cs.list)-1]
}

// callContext returns the context of the call a server request belongs
// to, or nil when no call is running.
func (c *conn) callContext(ctx context.Context) context.Context {
	if ref, ok := ctx.Value(callRefKey{}).(*callRef); ok && ref.ctx != nil {
		return ref.ctx
	}
	return c.inFlight.latest()
}

// askerFor returns who can answer a server request arriving with ctx, and
// the context to wait in (the call's).
func (c *conn) askerFor(ctx context.Context) (tools.Asker, context.Context) {
	cctx := c.callContext(ctx)
	if cctx == nil {
		return nil, nil
	}
	a, ok := tools.AskerFrom(cctx)
	if !ok {
		return nil, nil
	}
	return a, cctx
}

// serverAsks answers a connection's server requests: it is the mcp-go
// client's elicitation, sampling and roots handler.
type serverAsks struct {
	c     *conn
	roots func() []string // the service's roots when no call is running
}

// Elicit implements client.ElicitationHandler: the request becomes a card
// in the chat of the call that caused it; without one (or when the call
// ends first) it is declined or cancelled.
func (s serverAsks) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p := req.Params
	res := func(action mcp.ElicitationResponseAction, content any) *mcp.ElicitationResult {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action, Content: content}}
	}
	asker, cctx := s.c.askerFor(ctx)
	if asker == nil {
		return res(mcp.ElicitationResponseActionDecline, nil), nil
	}
	q := tools.Question{Kind: tools.QuestionElicitation, Server: s.c.server, Message: p.Message}
	var schema formSchema
	if p.Mode == mcp.ElicitationModeURL {
		u, err := url.Parse(p.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("elicitation URL %s is not an http(s) address", QuotePrefix(p.URL, 80))
		}
		q.URL = u.String()
	} else {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return nil, fmt.Errorf("requested schema: %w", err)
		}
		if schema, err = parseFormSchema(raw); err != nil {
			return nil, err
		}
		q.Schema = raw
	}
	ans, err := asker.Ask(cctx, q)
	if err != nil {
		// The call ended (or was stopped) before an answer.
		return res(mcp.ElicitationResponseActionCancel, nil), nil
	}
	switch ans.Action {
	case tools.ActionAccept:
		if q.URL != "" {
			return res(mcp.ElicitationResponseActionAccept, nil), nil
		}
		content, err := schema.fill(ans.Content)
		if err != nil {
			return nil, fmt.Errorf("the form's answer: %w", err)
		}
		return res(mcp.ElicitationResponseActionAccept, content), nil
	case tools.ActionCancel:
		return res(mcp.ElicitationResponseActionCancel, nil), nil
	default:
		return res(mcp.ElicitationResponseActionDecline, nil), nil
	}
}

// CreateMessage implements client.SamplingHandler: the session's model
// answers after the user allowed it on a card.
func (s serverAsks) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	asker, cctx := s.c.askerFor(ctx)
	if asker == nil {
		return nil, fmt.Errorf("TinyElf declined the sampling request: it came while no tool call of this server was running, so there is no session to ask")
	}
	p := req.CreateMessageParams
	if len(p.Tools) > 0 {
		return nil, fmt.Errorf("sampling with tools is not supported: TinyElf does not declare sampling.tools")
	}
	sr := tools.SampleRequest{Server: s.c.server, SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens}
	if p.ModelPreferences != nil && len(p.ModelPreferences.Hints) > 0 {
		sr.ModelHint = p.ModelPreferences.Hints[0].Name
	}
	for _, m := range p.Messages {
		sr.Messages = append(sr.Messages, tools.SampleMessage{Role: string(m.Role), Text: samplingText(m.Content)})
	}
	out, err := asker.Sample(cctx, sr)
	if err != nil {
		if errors.Is(err, tools.ErrDeclined) {
			return nil, fmt.Errorf("the user declined the sampling request")
		}
		return nil, fmt.Errorf("sampling: %w", err)
	}
	stop := out.StopReason
	if stop == "" {
		stop = "endTurn"
	}
	return &mcp.CreateMessageResult{
		SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(out.Text)},
		Model:           out.Model, StopReason: stop,
	}, nil
}

// samplingText renders a sampling message's content as text; media are
// named, not sent (the session's model may not read them).
func samplingText(content any) string {
	switch v := content.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case mcp.ImageContent, *mcp.ImageContent:
		return "[image]"
	case mcp.AudioContent, *mcp.AudioContent:
		return "[audio]"
	case []any:
		var parts []string
		for _, x := range v {
			parts = append(parts, samplingText(x))
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		if t, ok := v["text"].(string); ok {
			return t
		}
		if ty, ok := v["type"].(string); ok {
			return "[" + ty + "]"
		}
	}
	b, _ := json.Marshal(content)
	return string(b)
}

// ListRoots implements client.RootsHandler: the session's workspace when
// the request belongs to a call, else the service's roots.
func (s serverAsks) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	var dirs []string
	if a, _ := s.c.askerFor(ctx); a != nil && a.Workspace() != "" {
		dirs = []string{a.Workspace()}
	} else if s.roots != nil {
		dirs = s.roots()
	}
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range dirs {
		res.Roots = append(res.Roots, mcp.Root{URI: fileURI(d), Name: filepath.Base(d)})
	}
	return res, nil
}

// fileURI is the file:// URI of an absolute path.
func fileURI(dir string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
	return u.String()
}

// formSchema is an elicitation's requested schema: a flat object of
// primitive properties.
type formSchema struct {
	props    map[string]formProp
	required []string
}

type formProp struct {
	Type    string `json:"type"`
	Enum    []any  `json:"enum,omitempty"`
	Default any    `json:"default,omitempty"`
	Items   *struct {
		Enum []any `json:"enum,omitempty"`
	} `json:"items,omitempty"`
	OneOf []struct {
		Const any `json:"const"`
	} `json:"oneOf,omitempty"`
}

func parseFormSchema(raw json.RawMessage) (formSchema, error) {
	var s struct {
		Type       string              `json:"type"`
		Properties map[string]formProp `json:"properties"`
		Required   []string            `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
		return formSchema{}, fmt.Errorf("the requested schema is not a JSON Schema object")
	}
	for name, p := range s.Properties {
		switch p.Type {
		case "string", "number", "integer", "boolean", "array":
		default:
			return formSchema{}, fmt.Errorf("property %q has type %q; an elicitation form takes strings, numbers, booleans and enums", name, p.Type)
		}
	}
	return formSchema{props: s.Properties, required: s.Required}, nil
}

// fill checks the user's values against the schema, converting numbers
// and booleans typed as text, and adds the default of every property the
// user left out (SEP-1034). A required property without a value is an
// error.
func (s formSchema) fill(content map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for name, p := range s.props {
		v, ok := content[name]
		if !ok || v == nil || v == "" {
			if p.Default != nil {
				out[name] = p.Default
			} else if slices.Contains(s.required, name) {
				return nil, fmt.Errorf("%s is required", name)
			}
			continue
		}
		cv, err := p.convert(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = cv
	}
	return out, nil
}

func (p formProp) convert(v any) (any, error) {
	switch p.Type {
	case "number", "integer":
		switch n := v.(type) {
		case float64:
			return n, nil
		case float32:
			return float64(n), nil
		case int:
			return float64(n), nil
		case int64:
			return float64(n), nil
		case json.Number:
			return n.Float64()
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", n)
			}
			return f, nil
		}
		return nil, fmt.Errorf("want a number")
	case "boolean":
		switch b := v.(type) {
		case bool:
			return b, nil
		case string:
			return strconv.ParseBool(b)
		}
		return nil, fmt.Errorf("want true or false")
	case "array":
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list")
		}
		return items, nil
	default:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want text")
		}
		if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e any) bool { return e == s }) {
			return nil, fmt.Errorf("%q is not one of the choices", s)
		}
		return s, nil
	}
}

// serverRequestWait bounds a server request that belongs to no call.
const serverRequestWait = 10 * time.Minute
