package web

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/gogs/chardet"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// fetched is one HTTP answer, its body decoded from its transfer
// compression (not yet from its charset) and cut at the size limit.
type fetched struct {
	url         *url.URL // after redirects
	requested   string
	status      int
	statusText  string
	contentType string // the full header value
	mediaType   string // lower case, without parameters
	body        []byte
	truncated   bool // the body went on past the limit and was not read further
	declared    int64
}

// fetch GETs u with the client, reading at most maxBody decoded bytes.
// Transport failures come back as errors the model can read; a cancelled
// ctx as ctx.Err().
func fetch(ctx context.Context, client *http.Client, u *url.URL, maxBody int64, accept string) (*fetched, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("User-Agent", webUserAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip, br, deflate")
	req.Header.Set("Accept-Language", "en;q=0.9, *;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	f := &fetched{
		url: resp.Request.URL, requested: u.String(), status: resp.StatusCode, statusText: http.StatusText(resp.StatusCode),
		contentType: resp.Header.Get("Content-Type"), declared: resp.ContentLength,
	}
	if mt, _, err := mime.ParseMediaType(f.contentType); err == nil {
		f.mediaType = strings.ToLower(mt)
	}
	body, err := decodedBody(resp)
	if err != nil {
		return nil, err
	}
	f.body, f.truncated, err = readAtMost(body, maxBody)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("read the body of %s: %w", f.url.Redacted(), err)
	}
	return f, nil
}

// decodedBody undoes the Content-Encoding (gzip, br, deflate).
func decodedBody(resp *http.Response) (io.Reader, error) {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	switch enc {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("the server sent a broken gzip body: %w", err)
		}
		return zr, nil
	case "br":
		return brotli.NewReader(resp.Body), nil
	case "deflate":
		return flate.NewReader(resp.Body), nil
	}
	return nil, fmt.Errorf("the server sent the body in an unsupported encoding %q", enc)
}

// readAtMost reads up to max bytes and reports whether more followed. The
// rest is never read: closing the body drops it.
func readAtMost(r io.Reader, max int64) ([]byte, bool, error) {
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(r, max+1))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, err
	}
	b := buf.Bytes()
	if n > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

var metaCharset = regexp.MustCompile(`(?i)<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_:.\-]+)`)

// toUTF8 decodes text in the charset the header, a BOM or the document
// declares; without a declaration it takes UTF-8 when the bytes are valid
// UTF-8, and otherwise asks a statistical detector (Shift_JIS and EUC-JP
// pages without a meta tag come out right that way).
func toUTF8(body []byte, contentType string, isHTML bool) (string, string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	if !certain && isHTML {
		// The standard prescan reads only 1024 bytes; long heads put the
		// meta tag later.
		head := body[:min(len(body), 16<<10)]
		if m := metaCharset.FindSubmatch(head); m != nil {
			if e, n := charset.Lookup(string(m[1])); e != nil {
				enc, name, certain = e, n, true
			}
		}
	}
	if !certain {
		switch {
		case utf8.Valid(body):
			enc, name = encoding.Nop, "utf-8"
		default:
			if r, err := chardet.NewTextDetector().DetectBest(body[:min(len(body), 64<<10)]); err == nil && r.Confidence >= 30 {
				if e, n := charset.Lookup(r.Charset); e != nil {
					enc, name = e, n
				}
			}
		}
	}
	if enc == encoding.Nop || name == "utf-8" {
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	return string(out), name
}
