package web

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfMaxPages bounds the pages whose text is extracted.
const pdfMaxPages = 200

// pdfPage extracts a PDF's text with github.com/ledongthuc/pdf, a small
// pure-Go reader (rsc.io/pdf's descendant). It reads text drawn with
// standard and embedded fonts page by page; a scanned PDF, an encrypted
// one, or one it cannot parse is described instead. The library panics on
// some malformed files, so a panic is turned into that description too.
func pdfPage(ctx context.Context, f *fetched) page {
	desc := fmt.Sprintf("A PDF document (%s)", bodySize(f))
	if f.truncated {
		return page{Kind: "description", Text: desc + "; it is larger than the 5 MB limit, so only its first part was read and its text cannot be extracted."}
	}
	text, pages, err := pdfText(ctx, f.body)
	switch {
	case err != nil:
		return page{Kind: "description", Text: fmt.Sprintf("%s; its text could not be extracted (%v).", desc, err)}
	case strings.TrimSpace(text) == "":
		return page{Kind: "description", Text: fmt.Sprintf("%s with %d pages and no extractable text (probably scanned images).", desc, pages)}
	}
	note := fmt.Sprintf("Text extracted from a PDF of %d pages; layout, images and tables are lost.", pages)
	if pages > pdfMaxPages {
		note = fmt.Sprintf("Text of the first %d of %d PDF pages; layout, images and tables are lost.", pdfMaxPages, pages)
	}
	return page{Kind: "pdf", Text: text, Charset: "utf-8", Note: note}
}

func pdfText(ctx context.Context, body []byte) (text string, pages int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed PDF: %v", p)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", 0, err
	}
	pages = r.NumPage()
	var b strings.Builder
	for i := 1; i <= min(pages, pdfMaxPages); i++ {
		if ctx.Err() != nil {
			return "", pages, ctx.Err()
		}
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		t, err := p.GetPlainText(nil)
		if err != nil {
			continue
		}
		if t = strings.TrimSpace(t); t != "" {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(t)
		}
		if b.Len() > MaxBodyBytes {
			break
		}
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD"), pages, nil
}

// PDFText extracts the text of a PDF's pages (the first pdfMaxPages) as
// WebFetch does, and returns it with the page count; a malformed file is an
// error, never a panic. Attachments reuse it.
func PDFText(ctx context.Context, body []byte) (text string, pages int, err error) {
	return pdfText(ctx, body)
}
