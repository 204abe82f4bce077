package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig for the image description
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"tinyelf/backend/tools"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// minArticleText is how much text readability must find for its result to
// count as the page's article; less means the page has none.
const minArticleText = 200

// page is a fetched body turned into text for the model.
type page struct {
	Title string
	// Kind says what the text is: "article" (readability's extract),
	// "page" (the whole body of a page without an article), "json", "text",
	// "pdf", or "description" for what has no text (images, binaries).
	Kind    string
	Text    string
	Charset string
	Note    string // what the model should know about how Text was made
	// Longer says the page has more text than was read (htmlTextCap).
	Longer bool
}

// newMarkdownConverter returns the HTML → Markdown converter the Web tools
// share: CommonMark with tables and strikethrough. It is safe for
// concurrent use.
func newMarkdownConverter() *converter.Converter {
	return converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
}

// convertBody turns a fetched body into text by its type.
func convertBody(ctx context.Context, conv *converter.Converter, f *fetched) (page, error) {
	mt := f.mediaType
	if mt == "" || mt == "application/octet-stream" {
		mt = sniffType(f.body)
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return htmlPage(ctx, conv, f)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return jsonPage(f), nil
	case mt == "application/pdf":
		return pdfPage(ctx, f), nil
	case strings.HasPrefix(mt, "image/"):
		return imagePage(f, mt), nil
	case isTextType(mt):
		text, cs := toUTF8(f.body, f.contentType, false)
		return page{Kind: "text", Text: text, Charset: cs}, nil
	}
	return page{Kind: "description", Text: fmt.Sprintf("A binary file (%s, %s); its contents are not shown.", mt, bodySize(f))}, nil
}

func sniffType(body []byte) string {
	t := http.DetectContentType(body)
	mt, _, _ := strings.Cut(t, ";")
	if mt == "text/plain" {
		trimmed := bytes.TrimSpace(body[:min(len(body), 512)])
		if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(bytes.TrimSpace(body)) {
			return "application/json"
		}
	}
	return mt
}

func isTextType(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	switch mt {
	case "application/xml", "application/javascript", "application/x-javascript", "application/ecmascript",
		"application/x-yaml", "application/yaml", "application/toml", "application/x-sh", "application/sql",
		"application/rss+xml", "application/atom+xml", "application/x-ndjson", "application/csv":
		return true
	}
	return strings.HasSuffix(mt, "+xml")
}

func bodySize(f *fetched) string {
	if f.truncated {
		if f.declared > 0 {
			return tools.HumanBytes(f.declared)
		}
		return "over " + tools.HumanBytes(int64(len(f.body)))
	}
	return tools.HumanBytes(int64(len(f.body)))
}

func jsonPage(f *fetched) page {
	var out bytes.Buffer
	body := bytes.TrimPrefix(f.body, []byte("\xef\xbb\xbf"))
	if err := json.Indent(&out, body, "", "  "); err != nil {
		note := "The body is not valid JSON; it is shown as it came."
		if f.truncated {
			note = "The body was cut at the size limit, so it is not complete JSON; it is shown as it came."
		}
		return page{Kind: "json", Text: strings.ToValidUTF8(string(body), "\uFFFD"), Charset: "utf-8", Note: note}
	}
	return page{Kind: "json", Text: out.String(), Charset: "utf-8"}
}

func imagePage(f *fetched, mt string) page {
	desc := fmt.Sprintf("An image (%s, %s)", mt, bodySize(f))
	if cfg, format, err := image.DecodeConfig(bytes.NewReader(f.body)); err == nil {
		desc = fmt.Sprintf("An image (%s, %s, %d×%d pixels, %s)", mt, bodySize(f), cfg.Width, cfg.Height, format)
	}
	return page{Kind: "description", Text: desc + "; WebFetch cannot show images as text."}
}

// htmlPage extracts the article with readability and converts it to
// Markdown; a page without an article is converted whole.
func htmlPage(ctx context.Context, conv *converter.Converter, f *fetched) (page, error) {
	text, cs := toUTF8(f.body, f.contentType, true)
	// Only the first htmlTextCap of text is ever used (summaries read 96
	// KB, raw output is cut at 48 KB), so the document is cut there before
	// it is parsed: a 5 MB page never becomes a 5 MB tree.
	cut, longer := htmlCutPoint(text, htmlTextCap)
	text = text[:cut]
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return page{}, fmt.Errorf("parse the HTML of %s: %w", f.url.Redacted(), err)
	}
	title := documentTitle(doc)
	if ctx.Err() != nil {
		return page{}, ctx.Err()
	}
	if readability.CheckDocument(doc) {
		parser := readability.NewParser()
		art, err := parser.ParseAndMutate(doc, f.url)
		if err == nil && art.Node != nil && articleTextLen(art.Node) >= minArticleText {
			md, err := conv.ConvertNode(art.Node, converter.WithDomain(f.url.String()), converter.WithContext(ctx))
			if err != nil {
				return page{}, fmt.Errorf("convert the article of %s to Markdown: %w", f.url.Redacted(), err)
			}
			if t := strings.TrimSpace(art.Title()); t != "" {
				title = t
			}
			p := page{Kind: "article", Title: title, Text: string(md), Charset: cs, Longer: longer}
			if by := strings.TrimSpace(art.Byline()); by != "" {
				p.Note = "By " + by + "."
			}
			if pub, err := art.PublishedTime(); err == nil {
				p.Note = strings.TrimSpace(p.Note + " Published " + pub.Format("2006-01-02") + ".")
			}
			return p, nil
		}
		// readability changed the tree; the whole page needs it unchanged.
		if doc, err = html.Parse(strings.NewReader(text)); err != nil {
			return page{}, fmt.Errorf("parse the HTML of %s: %w", f.url.Redacted(), err)
		}
	}
	body := findElement(doc, atom.Body)
	if body == nil {
		body = doc
	}
	removeElements(body, atom.Svg, atom.Template, atom.Button, atom.Select)
	md, err := conv.ConvertNode(body, converter.WithDomain(f.url.String()), converter.WithContext(ctx))
	if err != nil {
		return page{}, fmt.Errorf("convert %s to Markdown: %w", f.url.Redacted(), err)
	}
	return page{Kind: "page", Title: title, Text: string(md), Charset: cs, Longer: longer,
		Note: "No article was found on this page; the whole page is shown."}, nil
}

// htmlTextCap is how much of a page's text is parsed and converted.
const htmlTextCap = 112 << 10

// htmlCutPoint returns the byte offset in doc after which its visible text
// exceeds limit (len(doc) when it never does), and whether it was cut. It
// only tokenizes, so it costs no tree.
func htmlCutPoint(doc string, limit int) (int, bool) {
	if len(doc) <= limit {
		return len(doc), false
	}
	z := html.NewTokenizer(strings.NewReader(doc))
	offset, text, hidden := 0, 0, 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return len(doc), false
		}
		offset += len(z.Raw())
		switch tt {
		case html.StartTagToken:
			if name, _ := z.TagName(); isHiddenTag(name) {
				hidden++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); isHiddenTag(name) && hidden > 0 {
				hidden--
			}
		case html.TextToken:
			if hidden == 0 {
				text += len(bytes.TrimSpace(z.Raw()))
				if text > limit {
					return offset, true
				}
			}
		}
	}
}

func isHiddenTag(name []byte) bool {
	switch string(name) {
	case "script", "style", "noscript", "template", "svg":
		return true
	}
	return false
}

func documentTitle(doc *html.Node) string {
	if t := findElement(doc, atom.Title); t != nil {
		return flatText(t)
	}
	return ""
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := findElement(c, a); found != nil {
			return found
		}
	}
	return nil
}

func removeElements(n *html.Node, atoms ...atom.Atom) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && slices.Contains(atoms, c.DataAtom) {
			n.RemoveChild(c)
		} else {
			removeElements(c, atoms...)
		}
		c = next
	}
}

// flatText is a node's text on one line, runs of spaces made one.
func flatText(n *html.Node) string { return strings.Join(strings.Fields(innerText(n)), " ") }

func innerText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// articleTextLen counts the non-space bytes of an article's text.
func articleTextLen(n *html.Node) int {
	count := 0
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			count += len(strings.Join(strings.Fields(n.Data), ""))
		}
		for c := n.FirstChild; c != nil && count < minArticleText; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return count
}

// absoluteURL resolves ref against base, for links that come from outside
// the converter (search results).
func absoluteURL(base *url.URL, ref string) string {
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return ref
	}
	if base == nil {
		return r.String()
	}
	return base.ResolveReference(r).String()
}
