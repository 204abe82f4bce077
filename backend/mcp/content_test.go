package mcp

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolResult(t *testing.T) {
	t.Parallel()
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
	size := int64(2048)
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		want    string
		isError bool
		meta    []string
	}{
		{"text blocks joined", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("one"), mcp.NewTextContent("two")}},
			"one\ntwo", false, nil},
		{"image described, not dumped", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(png, "image/png")}},
			"[image: image/png, 68 bytes; shown to the user, not included here]", false, []string{MetaImages}},
		{"audio described", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(strings.Repeat("A", 4096), "audio/wav")}},
			"[audio: audio/wav, 3.0 KB; available to the user, not included here]", false, []string{MetaAudio}},
		{"embedded text resource inline", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(
			mcp.TextResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Text: "hello"})}},
			"[resource file:///a.txt (text/plain)]\nhello", false, nil},
		{"embedded blob described", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(
			mcp.BlobResourceContents{URI: "file:///a.bin", Blob: "AAECAw=="})}},
			"[resource file:///a.bin: binary unknown type, 4 bytes; not included here]", false, []string{MetaBlobs}},
		{"resource link listed", &mcp.CallToolResult{Content: []mcp.Content{mcp.ResourceLink{Type: "resource_link",
			URI: "repo://pr/42", Name: "PR 42", Description: "The failing PR", MIMEType: "text/markdown", Size: &size}}},
			"[resource link: PR 42 <repo://pr/42> (text/markdown) — The failing PR]", false, nil},
		{"structured content alone is pretty JSON", &mcp.CallToolResult{StructuredContent: map[string]any{"b": 1, "a": []any{"x"}}},
			"{\n  \"a\": [\n    \"x\"\n  ],\n  \"b\": 1\n}", false, []string{MetaStructured}},
		{"structured content with text keeps the text", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"t":1}`)},
			StructuredContent: map[string]any{"t": 1}}, `{"t":1}`, false, []string{MetaStructured}},
		{"isError", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("no such repo")}, IsError: true},
			"no such repo", true, nil},
		{"isError without text", &mcp.CallToolResult{IsError: true}, "tool reported an error without details.", true, nil},
		{"empty", &mcp.CallToolResult{}, "(empty result)", false, nil},
		{"pointer content", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Type: "text", Text: "ptr"}}}, "ptr", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := toolResult("srv", "tool", tc.res)
			if got.Content != tc.want || got.IsError != tc.isError {
				t.Errorf("got %q (isError %v), want %q (isError %v)", got.Content, got.IsError, tc.want, tc.isError)
			}
			if got.Meta[MetaServer] != "srv" || got.Meta[MetaTool] != "tool" {
				t.Errorf("meta = %v", got.Meta)
			}
			for _, k := range tc.meta {
				if got.Meta[k] == nil {
					t.Errorf("meta lacks %s: %v", k, got.Meta)
				}
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    map[string]any
		want string
	}{
		{map[string]any{"progress": float64(2), "total": float64(5)}, "progress 2/5"},
		{map[string]any{"progress": float64(0.5)}, "progress 0.5"},
		{map[string]any{"progress": float64(3), "total": float64(10), "message": "Indexing"}, "Indexing (3/10)"},
	}
	for _, tc := range tests {
		if got := progressLine(tc.p); got != tc.want {
			t.Errorf("progressLine(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
