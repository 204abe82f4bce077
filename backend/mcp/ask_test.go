package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"tinyelf/backend/config"
	"tinyelf/backend/tools"
)

// fakeAsker is the user behind a tool call: it answers every question
// with answer (after wait, if set) and records what it was asked.
type fakeAsker struct {
	answer    tools.Answer
	wait      time.Duration
	sample    tools.SampleResult
	sampleErr error
	workspace string

	mu        sync.Mutex
	questions []tools.Question
	samples   []tools.SampleRequest
}

func (f *fakeAsker) Ask(ctx context.Context, q tools.Question) (tools.Answer, error) {
	f.mu.Lock()
	f.questions = append(f.questions, q)
	f.mu.Unlock()
	if f.wait > 0 {
		select {
		case <-time.After(f.wait):
		case <-ctx.Done():
			return tools.Answer{}, ctx.Err()
		}
	}
	return f.answer, nil
}

func (f *fakeAsker) Sample(ctx context.Context, r tools.SampleRequest) (tools.SampleResult, error) {
	f.mu.Lock()
	f.samples = append(f.samples, r)
	f.mu.Unlock()
	return f.sample, f.sampleErr
}

func (f *fakeAsker) Workspace() string { return f.workspace }

// callAs runs a tool with an Asker in its context, as the engine does.
func callAs(t *testing.T, svc *Service, name string, a tools.Asker) tools.Result {
	t.Helper()
	for _, tl := range svc.Tools() {
		if tl.Info().Name == name {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := tl.Execute(tools.WithAsker(ctx, a), map[string]any{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s among %v", name, toolNames(svc.Tools()))
	return tools.Result{}
}

// TestElicitationSamplingRoots drives the fake server's asking tools over
// stdio (2026-07-28: input_required results) and a 2025-11-25 streamable
// HTTP server (server-initiated requests on the call's stream): a form
// answered accept (the defaults filling what the user left out), decline
// and cancel; a page to open; the session's model for sampling; the
// session's workspace as the root; and nobody to ask outside a session.
func TestElicitationSamplingRoots(t *testing.T) {
	t.Parallel()
	legacy := httptest.NewServer(server.NewStreamableHTTPServer(askServer(), server.WithStreamableHTTPProtocolVersions(mcp.ProtocolVersion20251125)))
	t.Cleanup(legacy.Close)
	svc, _ := startService(t, testOptions(),
		fakeServer(t, "stdio", "-mode", "ask"),
		config.MCPServer{Name: "legacy", Type: "http", URL: legacy.URL + "/mcp"},
	)
	for _, srv := range []string{"stdio", "legacy"} {
		t.Run(srv, func(t *testing.T) {
			t.Parallel()
			if st, _ := svc.State(srv); st.Status != StatusConnected {
				t.Fatalf("%s: %+v", srv, st)
			}
			tool := func(n string) string { return "mcp__" + srv + "__" + n }

			a := &fakeAsker{answer: tools.Answer{Action: tools.ActionAccept, Content: map[string]any{"name": "Grace", "age": "41"}}, wait: 50 * time.Millisecond}
			res := callAs(t, svc, tool("ask_name"), a)
			if res.IsError || payload(res.Content) != "name=Grace age=41 color=green subscribe=false" {
				t.Errorf("accepted form = %+v; want the typed values and the defaults of the rest", res)
			}
			if len(a.questions) != 1 || a.questions[0].Server != srv || a.questions[0].Message != "Who are you?" || !json.Valid(a.questions[0].Schema) {
				t.Errorf("questions %+v", a.questions)
			}
			for action, want := range map[string]string{tools.ActionDecline: "decline", tools.ActionCancel: "cancel"} {
				res := callAs(t, svc, tool("ask_name"), &fakeAsker{answer: tools.Answer{Action: action}})
				if payload(res.Content) != "the user chose to "+want {
					t.Errorf("%s = %+v", action, res)
				}
			}
			// A bad answer (not a number) is refused, not passed on.
			if res := callAs(t, svc, tool("ask_name"), &fakeAsker{answer: tools.Answer{Action: tools.ActionAccept, Content: map[string]any{"name": "x", "age": "old"}}}); !res.IsError {
				t.Errorf("a form answer that does not fit the schema = %+v", res)
			}

			u := &fakeAsker{answer: tools.Answer{Action: tools.ActionAccept}}
			if res := callAs(t, svc, tool("open_page"), u); payload(res.Content) != "page: accept" || len(u.questions) != 1 || u.questions[0].URL != "https://example.com/connect" {
				t.Errorf("URL elicitation = %+v, questions %+v", res, u.questions)
			}

			s := &fakeAsker{sample: tools.SampleResult{Text: "A cat sat.", Model: "test-model"}}
			res = callAs(t, svc, tool("summarize"), s)
			if payload(res.Content) != "summary by test-model: A cat sat." {
				t.Errorf("sampling = %+v", res)
			}
			if len(s.samples) != 1 || s.samples[0].MaxTokens != 64 || s.samples[0].SystemPrompt != "You summarize." ||
				len(s.samples[0].Messages) != 1 || !strings.Contains(s.samples[0].Messages[0].Text, "the cat sat") {
				t.Errorf("sampling request %+v", s.samples)
			}
			denied := &fakeAsker{sampleErr: tools.ErrDeclined}
			if res := callAs(t, svc, tool("summarize"), denied); !res.IsError || !strings.Contains(res.Content, "declined") {
				t.Errorf("declined sampling = %+v", res)
			}

			ws := t.TempDir()
			if res := callAs(t, svc, tool("roots"), &fakeAsker{workspace: ws}); payload(res.Content) != "roots: "+fileURI(ws) {
				t.Errorf("roots = %+v, want %s", res, fileURI(ws))
			}
		})
	}
}

// askServer is a 2025-11-25 server with the fake server's asking tools
// (its requests are server-initiated there).
func askServer() *server.MCPServer {
	s := server.NewMCPServer("legacy-ask", "1.0.0", server.WithToolCapabilities(false), server.WithElicitation())
	s.AddTool(mcp.NewTool("ask_name"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ans := server.ElicitationResponse(req.Params.InputResponses, "who"); ans != nil {
			if ans.Action != mcp.ElicitationResponseActionAccept {
				return mcp.NewToolResultText("the user chose to " + string(ans.Action)), nil
			}
			c, _ := ans.Content.(map[string]any)
			return mcp.NewToolResultText("name=" + str(c["name"]) + " age=" + str(c["age"]) + " color=" + str(c["color"]) + " subscribe=" + str(c["subscribe"])), nil
		}
		return server.NewInputRequestBuilder("ask").Elicit("who", mcp.ElicitationParams{
			Mode: mcp.ElicitationModeForm, Message: "Who are you?",
			RequestedSchema: map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
				"name":      map[string]any{"type": "string", "default": "Ada"},
				"age":       map[string]any{"type": "integer", "default": 36},
				"color":     map[string]any{"type": "string", "enum": []string{"red", "green", "blue"}, "default": "green"},
				"subscribe": map[string]any{"type": "boolean", "default": false},
			}},
		}).ToolResult(), nil
	})
	s.AddTool(mcp.NewTool("open_page"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ans := server.ElicitationResponse(req.Params.InputResponses, "page"); ans != nil {
			return mcp.NewToolResultText("page: " + string(ans.Action)), nil
		}
		return server.NewInputRequestBuilder("page").Elicit("page", mcp.ElicitationParams{
			Mode: mcp.ElicitationModeURL, Message: "Connect your account", ElicitationID: "e1", URL: "https://example.com/connect",
		}).ToolResult(), nil
	})
	s.AddTool(mcp.NewTool("summarize"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ans := server.SamplingResponse(req.Params.InputResponses, "sum"); ans != nil {
			text := ""
			if tc, ok := ans.Content.(mcp.TextContent); ok {
				text = tc.Text
			} else if m, ok := ans.Content.(map[string]any); ok {
				text, _ = m["text"].(string)
			}
			return mcp.NewToolResultText("summary by " + ans.Model + ": " + text), nil
		}
		return server.NewInputRequestBuilder("sum").Sample("sum", mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("Summarize: the cat sat on the mat.")}},
			MaxTokens: 64, SystemPrompt: "You summarize.",
		}).ToolResult(), nil
	})
	s.AddTool(mcp.NewTool("roots"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ans := server.RootsResponse(req.Params.InputResponses, "roots"); ans != nil {
			var uris []string
			for _, r := range ans.Roots {
				uris = append(uris, r.URI)
			}
			return mcp.NewToolResultText("roots: " + strings.Join(uris, " ")), nil
		}
		return server.NewInputRequestBuilder("roots").Roots("roots").ToolResult(), nil
	})
	return s
}

func str(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// TestEverythingAsks drives server-everything's own asking tools over
// stdio: its elicitation form accepted (defaults added), declined and
// cancelled, its URL elicitation, its sampling request, and its roots
// list, which follows SetRoots.
func TestEverythingAsks(t *testing.T) {
	t.Parallel()
	script := npmScript(t, everythingPkg)
	svc, _ := startService(t, testOptions(), config.MCPServer{Name: "ev", Command: "node", Args: []string{script, "stdio"}})
	if st, _ := svc.State("ev"); st.Status != StatusConnected {
		t.Fatalf("server-everything: %+v", st)
	}
	call := func(tool string, a tools.Asker, args map[string]any) tools.Result {
		t.Helper()
		for _, tl := range svc.Tools() {
			if tl.Info().Name == "mcp__ev__"+tool {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				res, err := tl.Execute(tools.WithAsker(ctx, a), args)
				must(t, err)
				return res
			}
		}
		t.Fatalf("server-everything offers no %s (did TinyElf declare the capability?): %v", tool, toolNames(svc.Tools()))
		return tools.Result{}
	}
	a := &fakeAsker{answer: tools.Answer{Action: tools.ActionAccept, Content: map[string]any{"name": "Ada Lovelace", "integer": 7}}}
	res := call("trigger-elicitation-request", a, map[string]any{})
	for _, want := range []string{"User provided the requested information", `"name": "Ada Lovelace"`, `"integer": 7`, `"firstLine": "It was a dark and stormy night."`, `"untitledSingleSelectEnum": "Monica"`} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("accepted elicitation: %q lacks %q", res.Content, want)
		}
	}
	if len(a.questions) != 1 || !strings.Contains(string(a.questions[0].Schema), "titledMultipleSelectEnum") {
		t.Errorf("the form's schema did not reach the user: %+v", a.questions)
	}
	for action, want := range map[string]string{tools.ActionDecline: "User declined", tools.ActionCancel: "User cancelled"} {
		if res := call("trigger-elicitation-request", &fakeAsker{answer: tools.Answer{Action: action}}, map[string]any{}); !strings.Contains(res.Content, want) {
			t.Errorf("%s: %q", action, res.Content)
		}
	}
	u := &fakeAsker{answer: tools.Answer{Action: tools.ActionAccept}}
	if res := call("trigger-url-elicitation", u, map[string]any{"url": "https://example.com/oauth", "message": "Authorize the demo"}); res.IsError || len(u.questions) != 1 || u.questions[0].URL == "" {
		t.Errorf("URL elicitation: %+v, asked %+v", res, u.questions)
	}
	s := &fakeAsker{sample: tools.SampleResult{Text: "Paris.", Model: "test-model"}}
	res = call("trigger-sampling-request", s, map[string]any{"prompt": "Capital of France?", "maxTokens": 20})
	if !strings.Contains(res.Content, "Paris.") || len(s.samples) != 1 || s.samples[0].MaxTokens != 20 || !strings.Contains(s.samples[0].Messages[0].Text, "Capital of France?") {
		t.Errorf("sampling: %q, requests %+v", res.Content, s.samples)
	}
	ws := t.TempDir()
	svc.SetRoots([]string{ws})
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := call("get-roots-list", &fakeAsker{}, map[string]any{})
		if strings.Contains(res.Content, fileURI(ws)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after SetRoots the server lists %q, want %s", res.Content, fileURI(ws))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// payload is the server's own text inside the untrusted block a result
// reaches the model in (the text itself when it is not in one).
func payload(content string) string {
	i := strings.Index(content, "\n\n")
	if !strings.HasPrefix(content, "<"+untrustedTag+" ") || i < 0 {
		return content
	}
	return strings.TrimSuffix(content[i+2:], "\n</"+untrustedTag+">")
}
