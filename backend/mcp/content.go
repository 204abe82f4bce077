package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"tinyelf/backend/tools"
)

// Meta keys of a Result made from an MCP result. The model never sees Meta;
// the UI shows images and audio from it, and the log keeps it.
const (
	MetaServer     = "mcpServer" // the configured server name
	MetaTool       = "mcpTool"   // the tool's name on that server
	MetaImages     = "images"    // []Media: images returned
	MetaAudio      = "audio"     // []Media: audio returned
	MetaBlobs      = "blobs"     // []Media: binary embedded resources
	MetaStructured = "structuredContent"
)

// Media is an image, a piece of audio or a binary resource an MCP server
// returned: kept in Result.Meta for the UI, described in the model's text.
type Media struct {
	MIMEType string `json:"mimeType"`
	// Data is base64, as the server sent it.
	Data string `json:"data"`
	// URI is set for embedded resources.
	URI  string `json:"uri,omitempty"`
	Size int    `json:"size"` // decoded bytes
}

// decodedSize returns the number of bytes base64 data decodes to.
func decodedSize(data string) int {
	data = strings.TrimRight(strings.TrimSpace(data), "=")
	return base64.RawStdEncoding.DecodedLen(len(data))
}

// toolResult turns a tools/call result into what the model reads: text as
// is; images and audio described by type and size (their data stays in
// Meta); embedded resources inline when they are text and described when
// binary; resource links listed; structuredContent as indented JSON when
// there is no text; isError as an error result.
func toolResult(server, tool string, res *mcp.CallToolResult) tools.Result {
	out := tools.Result{Meta: map[string]any{MetaServer: server, MetaTool: tool}}
	if res == nil {
		out.Content = "(the server returned no result)"
		return out
	}
	var b strings.Builder
	hasText := false
	add := func(s string) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s)
	}
	var images, audio, blobs []Media
	for _, c := range res.Content {
		switch c := deref(c).(type) {
		case mcp.TextContent:
			add(c.Text)
			hasText = true
		case mcp.ImageContent:
			m := Media{MIMEType: c.MIMEType, Data: c.Data, Size: decodedSize(c.Data)}
			images = append(images, m)
			add(fmt.Sprintf("[image: %s, %s; shown to the user, not included here]", orUnknown(m.MIMEType), byteSize(m.Size)))
		case mcp.AudioContent:
			m := Media{MIMEType: c.MIMEType, Data: c.Data, Size: decodedSize(c.Data)}
			audio = append(audio, m)
			add(fmt.Sprintf("[audio: %s, %s; available to the user, not included here]", orUnknown(m.MIMEType), byteSize(m.Size)))
		case mcp.EmbeddedResource:
			text, blob := describeResource(c.Resource)
			if blob != nil {
				blobs = append(blobs, *blob)
			} else {
				hasText = true
			}
			add(text)
		case mcp.ResourceLink:
			add(describeLink(c))
		default:
			raw, _ := json.Marshal(c)
			add(fmt.Sprintf("[unsupported content: %s]", raw))
		}
	}
	if len(images) > 0 {
		out.Meta[MetaImages] = images
	}
	if len(audio) > 0 {
		out.Meta[MetaAudio] = audio
	}
	if len(blobs) > 0 {
		out.Meta[MetaBlobs] = blobs
	}
	if res.StructuredContent != nil {
		out.Meta[MetaStructured] = res.StructuredContent
		if !hasText {
			pretty, err := json.MarshalIndent(res.StructuredContent, "", "  ")
			if err == nil {
				add(string(pretty))
			}
		}
	}
	out.Content = b.String()
	out.IsError = res.IsError
	if out.Content == "" {
		if out.IsError {
			out.Content = fmt.Sprintf("%s reported an error without details.", tool)
		} else {
			out.Content = "(empty result)"
		}
	}
	return out
}

// deref lets the switches above accept both value and pointer contents;
// mcp-go decodes values, but hand-built results may hold pointers.
func deref(c any) any {
	switch p := c.(type) {
	case *mcp.TextContent:
		return *p
	case *mcp.ImageContent:
		return *p
	case *mcp.AudioContent:
		return *p
	case *mcp.EmbeddedResource:
		return *p
	case *mcp.ResourceLink:
		return *p
	case *mcp.TextResourceContents:
		return *p
	case *mcp.BlobResourceContents:
		return *p
	}
	return c
}

// describeResource renders one resource's contents: text inline under a
// header, a blob as a one-line description (returned as Media too).
func describeResource(rc mcp.ResourceContents) (string, *Media) {
	switch r := deref(rc).(type) {
	case mcp.TextResourceContents:
		return fmt.Sprintf("[resource %s%s]\n%s", r.URI, mimeSuffix(r.MIMEType), r.Text), nil
	case mcp.BlobResourceContents:
		m := &Media{MIMEType: r.MIMEType, Data: r.Blob, URI: r.URI, Size: decodedSize(r.Blob)}
		return fmt.Sprintf("[resource %s: binary %s, %s; not included here]", r.URI, orUnknown(r.MIMEType), byteSize(m.Size)), m
	}
	return "[resource with unknown contents]", nil
}

func describeLink(l mcp.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[resource link: %s <%s>%s", l.Name, l.URI, mimeSuffix(l.MIMEType))
	if l.Description != "" {
		fmt.Fprintf(&b, " — %s", l.Description)
	}
	b.WriteString("]")
	return b.String()
}

func mimeSuffix(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
}

func orUnknown(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

// byteSize formats n bytes for people: "68 bytes", "12.5 KB", "3.1 MB".
func byteSize(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
