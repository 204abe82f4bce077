package api

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// notToolNames are words of the tool descriptions and prompts that look
// like tool names (snake_case, CamelCase, name(…)) but name something
// else. A new name in a description that is neither a tool nor listed here
// fails TestEveryNamedCapabilityResolves: either the tool it names is
// missing, or it belongs here with what it is.
var notToolNames = map[string]string{
	"tool_creation":    "the permissions.json section (tool_creation.shared)",
	"waiting_approval": "a subagent state",
	"max_iterations":   "a subagent state",
	"SkillHub":         "the skill index service",
	"TinyElf":          "the product",
	"name":             "the notation name(arguments) of sessions_history.md",
	"http":             "http(s) in WebFetch's description",
	"my_tool":          "use_tool's example tool name",
	"my_tool_query":    "use_tool's example schema name",
}

var (
	// snake_case and CamelCase words, and words written as a call.
	snakeName = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b`)
	camelName = regexp.MustCompile(`\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b`)
	callName  = regexp.MustCompile(`\b([A-Za-z][A-Za-z0-9_]*)\(`)
	mcpName   = regexp.MustCompile(`\bmcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+\b`)
	// Skills are named as "the X skill" or read_skill(name="X").
	skillPhrase = regexp.MustCompile("\\b[Tt]he [`\"]?([a-z0-9]+(?:-[a-z0-9]+)+)[`\"]? skill\\b|\\b[Tt]he [`\"]([a-z0-9]+)[`\"] skill\\b")
	skillCall   = regexp.MustCompile(`read_skill\(name[=:] ?"([^"]+)"`)
)

// namedText is one text the model reads, with where it comes from.
type namedText struct{ where, text string }

// toolTexts returns the descriptions of a request's tools (the tool's and
// its parameters'), and every parameter name, in either wire format.
func toolTexts(req llmtest.Request) (texts []namedText, toolNames, params map[string]bool) {
	toolNames, params = map[string]bool{}, map[string]bool{}
	list, _ := req.Body["tools"].([]any)
	for _, raw := range list {
		tl, _ := raw.(map[string]any)
		if fn, ok := tl["function"].(map[string]any); ok { // OpenAI
			tl = fn
		}
		name, _ := tl["name"].(string)
		toolNames[name] = true
		desc, _ := tl["description"].(string)
		texts = append(texts, namedText{"the description of " + name, desc})
		schema := tl["parameters"]
		if schema == nil {
			schema = tl["input_schema"]
		}
		var walk func(v any, path string)
		walk = func(v any, path string) {
			switch v := v.(type) {
			case map[string]any:
				if props, ok := v["properties"].(map[string]any); ok {
					for p := range props {
						params[p] = true
					}
				}
				for k, x := range v {
					if s, ok := x.(string); ok && k == "description" {
						texts = append(texts, namedText{"the parameter " + path + " of " + name, s})
					}
					walk(x, path+"."+k)
				}
			case []any:
				for _, x := range v {
					walk(x, path)
				}
			}
		}
		walk(schema, "")
	}
	return texts, toolNames, params
}

// namesIn returns the tool-like and skill names a text mentions.
func namesIn(text string) (toolLike, skillNames []string) {
	// Placeholders ({tool}_{action}) and paths (a folder's name is no
	// tool) are left out.
	text = regexp.MustCompile(`\{[a-z_]+\}(_\{[a-z_]+\})?|\S*/\S*`).ReplaceAllString(text, " ")
	for _, re := range []*regexp.Regexp{snakeName, camelName, mcpName} {
		toolLike = append(toolLike, re.FindAllString(text, -1)...)
	}
	for _, m := range callName.FindAllStringSubmatch(text, -1) {
		toolLike = append(toolLike, m[1])
	}
	for _, re := range []*regexp.Regexp{skillPhrase, skillCall} {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			for _, g := range m[1:] {
				if g != "" {
					skillNames = append(skillNames, g)
				}
			}
		}
	}
	return toolLike, skillNames
}

// Every tool and skill a tool description or a system prompt (a session's
// and a subagent's) names is there for the model: each tool-like name is a
// tool of the session, a parameter, or a known non-tool word; each skill
// named loads with read_skill. The names are found by scanning the texts
// the model really receives, so a description that starts naming a tool or
// skill TinyElf does not ship fails here.
func TestEveryNamedCapabilityResolves(t *testing.T) {
	t.Parallel()
	h := newSvc(t)
	h.srv.SetDefault(llmtest.Turn{Dynamic: func(req llmtest.Request) llmtest.Turn {
		raw := string(req.Raw)
		switch {
		case strings.Contains(raw, "You are a subagent"):
			return llmtest.Turn{Text: "Nothing to do."}
		case strings.Contains(raw, "spawn a helper") && !strings.Contains(raw, `"tool_call_id"`):
			return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "sp1", Name: "spawn_agent", Arguments: `{"prompt":"look around","tools":["Read","Grep","Glob"]}`}}}
		}
		return llmtest.Turn{Text: "Done."}
	}})
	h.addProvider()
	ctx := context.Background()
	if _, err := h.svc.UpdatePreferences(ctx, PreferencesArgs{Discovery: &config.Discovery{Defer: "never"}}); err != nil {
		t.Fatal(err)
	}
	sess, err := h.svc.CreateSession(ctx, CreateSessionArgs{Workspace: h.workspace, Mode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "spawn a helper"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))

	reqs := h.srv.ChatRequests()
	var texts []namedText
	tools, params := map[string]bool{}, map[string]bool{}
	var sawChild bool
	for _, r := range reqs {
		tt, names, ps := toolTexts(r)
		texts = append(texts, tt...)
		texts = append(texts, namedText{"the system prompt", r.System()})
		sawChild = sawChild || strings.Contains(r.System(), "You are a subagent")
		for n := range names {
			tools[n] = true
		}
		for p := range ps {
			params[p] = true
		}
	}
	if !sawChild || !tools["use_tool"] || !tools["spawn_agent"] {
		t.Fatalf("the test saw no subagent prompt or not the full tool list (%d requests, tools %v)", len(reqs), tools)
	}

	wantSkills := map[string][]string{}
	reported, used := map[string]bool{}, map[string]bool{}
	for _, tx := range texts {
		toolLike, skillNames := namesIn(tx.text)
		for _, n := range toolLike {
			if notToolNames[n] != "" {
				used[n] = true
			}
			if tools[n] || params[n] || notToolNames[n] != "" || reported[tx.where+n] {
				continue
			}
			reported[tx.where+n] = true
			t.Errorf("%s names %q, which is no tool of the session (nor a parameter or a known non-tool word)", tx.where, n)
		}
		for _, n := range skillNames {
			wantSkills[n] = append(wantSkills[n], tx.where)
		}
	}
	for n := range notToolNames {
		if !used[n] {
			t.Errorf("notToolNames lists %q, which no description or prompt names any more: remove it", n)
		}
	}
	if len(wantSkills) == 0 {
		t.Fatal("no skill named anywhere: the scan is broken (use_tool names the tool-creator skill)")
	}

	// Each named skill loads: the model calls read_skill for every one.
	var calls []llmtest.ToolCall
	var names []string
	for n := range wantSkills {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		calls = append(calls, llmtest.ToolCall{ID: fmt.Sprint("rs", i), Name: "read_skill", Arguments: fmt.Sprintf(`{"name":%q}`, n)})
	}
	h.srv.Push(llmtest.Turn{ToolCalls: calls}, llmtest.Turn{Text: "Read them."})
	if _, err := h.svc.SendMessage(ctx, SendArgs{SessionID: sess.ID, Text: "read the skills"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(sess.ID, string(sessions.EventTurnEnd))
	results := map[string]sessions.ToolResult{}
	for ev, err := range h.svc.store.Events(ctx, sess.ID, 1, 0) {
		if err == nil && ev.Type == sessions.EventToolResult {
			var r sessions.ToolResult
			if json.Unmarshal(ev.Data, &r) == nil {
				results[r.CallID] = r
			}
		}
	}
	for i, n := range names {
		r, ok := results[fmt.Sprint("rs", i)]
		if !ok || r.IsError {
			t.Errorf("the skill %q named in %s does not load: %+v", n, strings.Join(wantSkills[n], ", "), r)
		}
	}
}
