package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"tinyelf/backend/tools"
)

// userTool is a user tool (seed 002) as a ToolSource offers it.
type userTool struct{ name string }

func (u userTool) Info() tools.Info {
	return tools.Info{Name: u.name, Description: "a user tool", Source: tools.SourceUserTool, Origin: "personal",
		Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (u userTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// TestSourceReason: a source's partition reason, which the capability diff
// repeats for the tools that came or went, says which server or which user
// tools changed.
func TestSourceReason(t *testing.T) {
	t.Parallel()
	many := []tools.Tool{}
	for i := range 7 {
		many = append(many, userTool{fmt.Sprintf("t%d_run", i)})
	}
	for _, tc := range []struct {
		name       string
		prev, next []tools.Tool
		want       string
	}{
		{"server connects", nil, []tools.Tool{originTool{"mcp__fs__read", "fs"}}, "MCP server fs offers tools"},
		{"server changes", []tools.Tool{originTool{"mcp__fs__read", "fs"}}, []tools.Tool{originTool{"mcp__fs__write", "fs"}}, "MCP server fs changed its tools"},
		{"server goes", []tools.Tool{originTool{"mcp__fs__read", "fs"}}, nil, "MCP server fs no longer offers tools (disconnected, failed, stopped or removed)"},
		{"user tool added", []tools.Tool{userTool{"mail_send"}}, []tools.Tool{userTool{"mail_send"}, userTool{"weather_now"}}, "the user tools added weather_now"},
		{"user tool removed", []tools.Tool{userTool{"mail_send"}, userTool{"weather_now"}}, []tools.Tool{userTool{"weather_now"}},
			"the user tools no longer have mail_send (their files were removed or no longer load)"},
		{"many added", nil, many, "the user tools added t0_run, t1_run, t2_run, t3_run, t4_run and 2 more"},
		{"both", []tools.Tool{originTool{"mcp__fs__read", "fs"}}, []tools.Tool{userTool{"weather_now"}},
			"the user tools added weather_now; MCP server fs no longer offers tools (disconnected, failed, stopped or removed)"},
		{"other tools", []tools.Tool{benchTool{"a"}}, []tools.Tool{benchTool{"b"}}, "the session's tool sources changed their tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sourceReason(tc.prev, tc.next); got != tc.want {
				t.Errorf("sourceReason = %q, want %q", got, tc.want)
			}
		})
	}
}
