package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/config"
)

// slowStarters are fake servers that take 100 to 300 ms to start, like
// servers that load a model or open a database before answering.
func slowStarters(tb testing.TB) []config.MCPServer {
	var out []config.MCPServer
	for i, d := range []string{"100ms", "150ms", "200ms", "250ms", "300ms"} {
		out = append(out, fakeServer(tb, fmt.Sprintf("s%d", i), "-delay", d))
	}
	return out
}

// coldStart starts servers in a new service and returns how long it took
// until all of them were connected.
func coldStart(tb testing.TB, servers []config.MCPServer) time.Duration {
	start := time.Now()
	svc := NewService(servers, Options{})
	svc.Start(context.Background())
	defer svc.Close()
	if err := svc.WaitReady(context.Background()); err != nil {
		tb.Fatal(err)
	}
	d := time.Since(start)
	for _, st := range svc.States() {
		if st.Status != StatusConnected {
			tb.Fatalf("%s: %s %s", st.Name, st.Status, st.Error)
		}
	}
	return d
}

// BenchmarkColdStart measures the time until every server is connected:
// the slowest fake server alone, the five together, and five instant ones.
// The goal (README): five-parallel within 1.3 times slowest-alone.
func BenchmarkColdStart(b *testing.B) {
	servers := slowStarters(b)
	var instant []config.MCPServer
	for i := range 5 {
		instant = append(instant, fakeServer(b, fmt.Sprintf("i%d", i)))
	}
	for _, bc := range []struct {
		name    string
		servers []config.MCPServer
	}{
		{"slowest-alone", servers[4:]},
		{"five-parallel", servers},
		{"one-instant", instant[:1]},
		{"five-instant", instant},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				coldStart(b, bc.servers)
			}
		})
	}
}

// BenchmarkColdStartEverything starts server-everything (node) once and
// five times in parallel; on two cores node's start-up is CPU-bound.
func BenchmarkColdStartEverything(b *testing.B) {
	script := npmScript(b, everythingPkg)
	var servers []config.MCPServer
	for i := range 5 {
		servers = append(servers, config.MCPServer{Name: fmt.Sprintf("e%d", i), Command: "node", Args: []string{script, "stdio"}})
	}
	for _, n := range []int{1, 5} {
		b.Run(fmt.Sprintf("%d", n), func(b *testing.B) {
			for b.Loop() {
				coldStart(b, servers[:n])
			}
		})
	}
}

// BenchmarkCall compares one echo call made directly with the mcp-go
// client with the same call made through tools.Registry (coercion,
// validation, middleware, the adapter, result mapping, truncation).
func BenchmarkCall(b *testing.B) {
	svc := NewService([]config.MCPServer{fakeServer(b, "bench")}, Options{})
	svc.Start(context.Background())
	defer svc.Close()
	if err := svc.WaitReady(context.Background()); err != nil {
		b.Fatal(err)
	}
	c, st := svc.runnerNamed("bench").connection()
	if c == nil {
		b.Fatalf("not connected: %+v", st)
	}
	ctx := context.Background()
	b.Run("direct-mcp-go-client", func(b *testing.B) {
		var req mcp.CallToolRequest
		req.Params.Name = "echo"
		req.Params.Arguments = map[string]any{"message": "hi"}
		for b.Loop() {
			res, err := c.client.CallTool(ctx, req)
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("tools-registry", func(b *testing.B) {
		reg := registryOf(b, svc.Tools())
		args := json.RawMessage(`{"message":"hi"}`)
		for b.Loop() {
			if res := reg.Execute(ctx, "b", "mcp__bench__echo", args); res.IsError {
				b.Fatal(res.Content)
			}
		}
	})
}
