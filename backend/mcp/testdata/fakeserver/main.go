// Command fakeserver is a small MCP server over stdio used by the backend/mcp
// tests. It is a real mcp-go server (so it speaks protocol 2026-07-28 and the
// 2025-11-25 handshake), and its -mode flag turns it into the misbehaving
// servers the fault tests need.
//
//	normal           serve tools, resources and prompts
//	hang             read stdin, never answer anything
//	garbage          print non-JSON lines on stdout, never answer
//	noisy            print non-JSON lines on stdout, then serve normally
//	exit             print an error on stderr and exit with status 3
//	once             serve the first time; later starts (marked in -state)
//	                 print an error and exit with status 4
//	ask              serve normally, plus tools that ask the client: ask_name
//	                 (a form elicitation), open_page (a URL elicitation),
//	                 summarize (sampling) and roots (roots/list)
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tinyPNG is a 1x1 transparent PNG.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

func main() {
	mode := flag.String("mode", "normal", "behaviour (see the package doc)")
	delay := flag.Duration("delay", 0, "sleep this long before serving")
	state := flag.String("state", "", "folder for the once mode's marker")
	name := flag.String("name", "fake", "server name reported in serverInfo")
	flag.Parse()

	fmt.Fprintf(os.Stderr, "fakeserver %s starting (mode %s)\n", *name, *mode)
	time.Sleep(*delay)
	switch *mode {
	case "hang":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "garbage":
		fmt.Println("Welcome to fakeserver! This is not JSON.")
		fmt.Println("Loading plugins... done")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	case "noisy":
		fmt.Println("Welcome to fakeserver! This is not JSON.")
	case "exit":
		fmt.Fprintln(os.Stderr, "error: FAKE_API_KEY is not set")
		os.Exit(3)
	case "once":
		marker := filepath.Join(*state, "started")
		if _, err := os.Stat(marker); err == nil {
			fmt.Fprintln(os.Stderr, "error: refusing to start twice")
			os.Exit(4)
		}
		_ = os.WriteFile(marker, []byte("1"), 0o644)
	}

	s := newServer(*name)
	if *mode == "ask" {
		addAskTools(s)
	}
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

func newServer(name string) *server.MCPServer {
	var listings atomic.Int64 // tools/list requests answered
	hooks := &server.Hooks{}
	hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { listings.Add(1) })
	s := server.NewMCPServer(name, "1.0.0",
		server.WithHooks(hooks),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithPromptCapabilities(true),
	)
	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Echoes the message back."),
		mcp.WithString("message", mcp.Required(), mcp.Description("Text to echo.")),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("Echo: " + req.GetString("message", "")), nil
	})
	s.AddTool(mcp.NewTool("add",
		mcp.WithDescription("Adds two numbers."),
		mcp.WithNumber("a", mcp.Required()),
		mcp.WithNumber("b", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(req.GetFloat("a", 0) + req.GetFloat("b", 0))), nil
	})
	s.AddTool(mcp.NewTool("crash",
		mcp.WithDescription("Exits the server in the middle of the call."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: simulated crash in the middle of a call")
		os.Exit(2)
		return nil, nil
	})
	s.AddTool(mcp.NewTool("fail",
		mcp.WithDescription("Returns a tool error."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("the widget is broken"), nil
	})
	s.AddTool(mcp.NewTool("image",
		mcp.WithDescription("Returns a tiny PNG."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			mcp.NewTextContent("Here is the image:"),
			mcp.NewImageContent(tinyPNG, "image/png"),
		}}, nil
	})
	s.AddTool(mcp.NewTool("slow",
		mcp.WithDescription("Reports progress for each step, then answers."),
		mcp.WithNumber("steps", mcp.Required()),
		mcp.WithNumber("stepMs", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		steps := int(req.GetFloat("steps", 1))
		step := time.Duration(req.GetFloat("stepMs", 10)) * time.Millisecond
		var token mcp.ProgressToken
		if req.Params.Meta != nil {
			token = req.Params.Meta.ProgressToken
		}
		for i := 1; i <= steps; i++ {
			select {
			case <-ctx.Done():
				fmt.Fprintln(os.Stderr, "slow: cancelled at step", i)
				return nil, ctx.Err()
			case <-time.After(step):
			}
			if token != nil {
				_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": token, "progress": i, "total": steps,
					"message": fmt.Sprintf("step %d of %d", i, steps),
				})
			}
		}
		// mcp-go's stdio server writes notifications from another goroutine
		// than responses, so a result sent at once can overtake the last
		// progress on the wire; real servers have the same race, the test
		// wants all steps.
		time.Sleep(20 * time.Millisecond)
		return mcp.NewToolResultText(fmt.Sprintf("done after %d steps", steps)), nil
	})
	s.AddTool(mcp.NewTool("add_tool",
		mcp.WithDescription("Adds the tool 'extra' (tools/list_changed follows)."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddTool(mcp.NewTool("extra", mcp.WithDescription("Added at run time.")),
			func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("extra!"), nil
			})
		return mcp.NewToolResultText("added"), nil
	})
	s.AddTool(mcp.NewTool("remove_tool",
		mcp.WithDescription("Removes the tool 'extra'."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.DeleteTools("extra")
		return mcp.NewToolResultText("removed"), nil
	})

	s.AddTool(mcp.NewTool("flood",
		mcp.WithDescription("Changes the tool list count times, one every everyMs (a tools/list_changed each), then adds the tool 'final'."),
		mcp.WithNumber("count", mcp.Required()),
		mcp.WithNumber("everyMs"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := int(req.GetFloat("count", 1))
		every := time.Duration(req.GetFloat("everyMs", 0) * float64(time.Millisecond))
		tmp := mcp.NewTool("tmp", mcp.WithDescription("Here for a moment."))
		noop := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(""), nil
		}
		for i := 0; i < n; i++ {
			time.Sleep(every)
			if i%2 == 0 {
				s.AddTool(tmp, noop)
			} else {
				s.DeleteTools("tmp")
			}
		}
		s.DeleteTools("tmp")
		s.AddTool(mcp.NewTool("final", mcp.WithDescription("Added after the flood.")), noop)
		return mcp.NewToolResultText(fmt.Sprintf("changed the list %d times", n)), nil
	})
	s.AddTool(mcp.NewTool("listings",
		mcp.WithDescription("Says how many tools/list requests the server answered."),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(listings.Load())), nil
	})

	s.AddResource(mcp.NewResource("fake://hello", "hello",
		mcp.WithResourceDescription("A greeting."), mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "fake://hello", MIMEType: "text/plain", Text: "Hello from the fake server."}}, nil
		})
	s.AddResource(mcp.NewResource("fake://big", "big", mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "fake://big", MIMEType: "text/plain", Text: strings.Repeat("0123456789abcdef\n", 20000)}}, nil
		})
	s.AddResource(mcp.NewResource("fake://blob", "blob", mcp.WithMIMEType("application/octet-stream")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: "fake://blob", MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString([]byte{1, 2, 3, 4, 5})}}, nil
		})

	s.AddPrompt(mcp.NewPrompt("greet",
		mcp.WithPromptDescription("Greets someone."),
		mcp.WithArgument("name", mcp.RequiredArgument(), mcp.ArgumentDescription("Who to greet.")),
		mcp.WithArgument("style", mcp.ArgumentDescription("formal or casual")),
	), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		style := req.Params.Arguments["style"]
		if style == "" {
			style = "casual"
		}
		return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("Please greet %s in a %s way.", req.Params.Arguments["name"], style))),
		}), nil
	})
	return s
}

// addAskTools adds the tools that ask the client something, through
// mcp-go's input requests (an input_required result on 2026-07-28, a
// server-initiated request on earlier revisions).
func addAskTools(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("ask_name", mcp.WithDescription("Asks the user for their name and favourite colour.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ans := server.ElicitationResponse(req.Params.InputResponses, "who"); ans != nil {
				if ans.Action != mcp.ElicitationResponseActionAccept {
					return mcp.NewToolResultText("the user chose to " + string(ans.Action)), nil
				}
				c, _ := ans.Content.(map[string]any)
				return mcp.NewToolResultText(fmt.Sprintf("name=%v age=%v color=%v subscribe=%v", c["name"], c["age"], c["color"], c["subscribe"])), nil
			}
			return server.NewInputRequestBuilder("ask").Elicit("who", mcp.ElicitationParams{
				Mode: mcp.ElicitationModeForm, Message: "Who are you?",
				RequestedSchema: map[string]any{"type": "object", "required": []string{"name"}, "properties": map[string]any{
					"name":      map[string]any{"type": "string", "title": "Name", "default": "Ada"},
					"age":       map[string]any{"type": "integer", "title": "Age", "default": 36},
					"color":     map[string]any{"type": "string", "title": "Colour", "enum": []string{"red", "green", "blue"}, "default": "green"},
					"subscribe": map[string]any{"type": "boolean", "title": "Subscribe", "default": false},
				}},
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("open_page", mcp.WithDescription("Asks the user to open a page.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ans := server.ElicitationResponse(req.Params.InputResponses, "page"); ans != nil {
				return mcp.NewToolResultText("page: " + string(ans.Action)), nil
			}
			return server.NewInputRequestBuilder("page").Elicit("page", mcp.ElicitationParams{
				Mode: mcp.ElicitationModeURL, Message: "Connect your account", ElicitationID: "e1", URL: "https://example.com/connect",
			}).ToolResult(), nil
		})
	s.AddTool(mcp.NewTool("summarize", mcp.WithDescription("Asks the client's model for a summary.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
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
	s.AddTool(mcp.NewTool("roots", mcp.WithDescription("Lists the client's roots.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ans := server.RootsResponse(req.Params.InputResponses, "roots"); ans != nil {
				var uris []string
				for _, r := range ans.Roots {
					uris = append(uris, r.URI)
				}
				return mcp.NewToolResultText("roots: " + strings.Join(uris, " ")), nil
			}
			return server.NewInputRequestBuilder("roots").Roots("roots").ToolResult(), nil
		})
}
