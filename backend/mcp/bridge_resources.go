package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// The bridge's resources: the workspace's files and the session history,
// for CLI agents that read resources rather than call tools.
//
//   - tinyelf://sessions: the recent sessions, one line each, and
//     tinyelf://sessions/{id}: one session's conversation;
//   - file://<workspace>/: the workspace's top folder listed, and
//     file://<workspace>/{+path}: any file in it, read-only (links may not
//     leave the folder).

// maxResourceRead bounds one file read through the bridge.
const maxResourceRead = 1 << 20

// addBridgeResources registers the resources of the eligible providers.
func addBridgeResources(s *server.MCPServer, sessions SessionReader, workspace string) {
	if sessions != nil {
		s.AddResource(mcp.NewResource("tinyelf://sessions", "sessions",
			mcp.WithResourceDescription("TinyElf's recent sessions, newest first: id, title, workspace, messages."),
			mcp.WithMIMEType("text/plain")),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				list, err := sessions.List(ctx, 100, 0)
				if err != nil {
					return nil, fmt.Errorf("list sessions: %w", err)
				}
				var b strings.Builder
				for _, s := range list {
					fmt.Fprintf(&b, "%s\t%s\t%s\t%d messages\t%s\n", s.ID, s.Title, s.Workspace, s.Messages, s.UpdatedAt.Format("2006-01-02 15:04"))
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: b.String()}}, nil
			})
		s.AddResourceTemplate(mcp.NewResourceTemplate("tinyelf://sessions/{id}", "session",
			mcp.WithTemplateDescription("One TinyElf session's conversation, as Markdown."),
			mcp.WithTemplateMIMEType("text/markdown")),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				id := strings.TrimPrefix(req.Params.URI, "tinyelf://sessions/")
				if id == "" || strings.Contains(id, "/") {
					return nil, fmt.Errorf("no session %s", QuotePrefix(id, quoteLimit))
				}
				msgs, err := sessions.History(ctx, id, 0)
				if err != nil {
					return nil, fmt.Errorf("session %s: %w", QuotePrefix(id, quoteLimit), err)
				}
				var b strings.Builder
				for _, m := range msgs {
					fmt.Fprintf(&b, "## %s (%s)\n\n%s\n\n", m.Role, m.Time.Format("2006-01-02 15:04"), m.Text)
				}
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: b.String()}}, nil
			})
	}
	if workspace == "" {
		return
	}
	base := fileURI(workspace)
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	s.AddResource(mcp.NewResource(base, filepath.Base(workspace),
		mcp.WithResourceDescription("The workspace folder's top level, one entry a line (folders end in /)."),
		mcp.WithMIMEType("text/plain")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			entries, err := os.ReadDir(workspace)
			if err != nil {
				return nil, fmt.Errorf("list the workspace: %w", err)
			}
			var names []string
			for _, e := range entries {
				n := e.Name()
				if e.IsDir() {
					n += "/"
				}
				names = append(names, n)
			}
			sort.Strings(names)
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: strings.Join(names, "\n")}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate(base+"{+path}", "workspace file",
		mcp.WithTemplateDescription("A file of the workspace folder, read-only.")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return readWorkspaceResource(workspace, base, req.Params.URI)
		})
}

// readWorkspaceResource reads uri (under base) from the workspace through
// an os.Root, so that neither ".." nor a link leaves it.
func readWorkspaceResource(workspace, base, uri string) ([]mcp.ResourceContents, error) {
	rel, ok := strings.CutPrefix(uri, base)
	if !ok {
		return nil, fmt.Errorf("%s is not in the workspace", QuotePrefix(uri, 80))
	}
	if p, err := url.PathUnescape(rel); err == nil {
		rel = p
	}
	rel = path.Clean(rel)
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("%s is not in the workspace", QuotePrefix(uri, 80))
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("open the workspace: %w", err)
	}
	defer root.Close()
	fi, err := root.Stat(filepath.FromSlash(rel))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, errNoFile(err))
	}
	if fi.IsDir() {
		entries, err := fs.ReadDir(root.FS(), rel)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() {
				n += "/"
			}
			names = append(names, n)
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: strings.Join(names, "\n")}}, nil
	}
	if fi.Size() > maxResourceRead {
		return nil, fmt.Errorf("%s is %d bytes; the bridge reads files of up to %d (use workspace_read_file for a part)", rel, fi.Size(), maxResourceRead)
	}
	b, err := fs.ReadFile(root.FS(), rel)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	mt := mime.TypeByExtension(path.Ext(rel))
	if utf8.Valid(b) {
		if mt == "" {
			mt = "text/plain"
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: mt, Text: string(b)}}, nil
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mt, Blob: base64.StdEncoding.EncodeToString(b)}}, nil
}

func errNoFile(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("no such file in the workspace")
	}
	return err
}
