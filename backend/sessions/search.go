package sessions

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Search covers the text of user and assistant messages. Tool results are
// left out on purpose: they are mostly file contents, command output and
// web pages, which would bury the conversation under noise (and triple the
// index); compaction summaries are left out because they repeat messages
// that are already indexed.
//
// The index uses FTS5's trigram tokenizer, which matches any substring of
// three or more characters, case-insensitively: a Japanese word inside a
// sentence is found although Japanese puts no spaces between words, and
// "pars" finds "parser". Terms of one or two characters, which trigrams
// cannot index, are matched by a LIKE scan of the indexed text instead.

// SearchHit is one message that matches a search.
type SearchHit struct {
	SessionID    string    `json:"sessionId"`
	SessionTitle string    `json:"sessionTitle"`
	Seq          int64     `json:"seq"`
	Role         Role      `json:"role"`
	Time         time.Time `json:"time"`
	// Snippet is an HTML-escaped excerpt of the message around the first
	// match, with every match wrapped in <mark>…</mark>.
	Snippet string `json:"snippet"`
}

// SearchOptions pages and scopes Search.
type SearchOptions struct {
	Limit          int // 0 means 20
	Offset         int
	SessionID      string // when set, search only this session
	IncludeDeleted bool   // also search soft-deleted sessions
}

// snippetRunes is about how many characters a snippet shows.
const snippetRunes = 80

// Search finds messages containing every term of query, best matches first
// (FTS5's bm25; newest first when every term is shorter than three
// characters). The query is the user's text, not FTS5 syntax: words are
// separated by spaces, "double quotes" keep a phrase together, and
// anything else (a lone quote, AND, NEAR, *, parentheses) is searched for
// as written rather than failing. An empty query finds nothing.
func (s *Store) Search(ctx context.Context, query string, o SearchOptions) (_ []SearchHit, err error) {
	defer s.explain(&err)
	terms := parseQuery(query)
	if len(terms) == 0 {
		return nil, nil
	}
	var match []string
	var where []string
	var args []any
	for _, t := range terms {
		if utf8.RuneCountInString(t) >= 3 {
			match = append(match, `"`+strings.ReplaceAll(t, `"`, `""`)+`"`)
			continue
		}
		where = append(where, `d.text LIKE ? ESCAPE '\'`)
		args = append(args, "%"+escapeLike(t)+"%")
	}
	if !o.IncludeDeleted {
		where = append(where, `s.deleted_at = 0`)
	}
	if o.SessionID != "" {
		where = append(where, `d.session_id = ?`)
		args = append(args, o.SessionID)
	}
	if o.Limit <= 0 {
		o.Limit = 20
	}
	if len(match) > 0 {
		// Messages still waiting for the index are indexed first.
		waiting, err := s.searchWaiting(ctx)
		if err == nil && waiting {
			err = s.IndexSearch(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("search sessions for %q: %w", query, err)
		}
	}
	cols := `d.session_id, s.custom_title, s.auto_title, d.seq, d.role, d.text, e.ts`
	joins := ` JOIN sessions s ON s.id = d.session_id JOIN events e ON e.session_id = d.session_id AND e.seq = d.seq`
	var q string
	if len(match) > 0 {
		q = `SELECT ` + cols + ` FROM search_fts f JOIN search_docs d ON d.id = f.rowid` + joins +
			` WHERE search_fts MATCH ?`
		args = append([]any{strings.Join(match, " ")}, args...)
		for _, w := range where {
			q += ` AND ` + w
		}
		q += ` ORDER BY f.rank, d.id DESC`
	} else {
		q = `SELECT ` + cols + ` FROM search_docs d` + joins + ` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY d.id DESC`
	}
	q += ` LIMIT ? OFFSET ?`
	args = append(args, o.Limit, max(o.Offset, 0))

	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search sessions for %q: %w", query, classify(err))
	}
	defer rows.Close()
	var hits []SearchHit
	for rows.Next() {
		var (
			h          SearchHit
			custom     string
			auto, text string
			ts         int64
		)
		if err := rows.Scan(&h.SessionID, &custom, &auto, &h.Seq, &h.Role, &text, &ts); err != nil {
			return nil, fmt.Errorf("search sessions for %q: %w", query, classify(err))
		}
		h.SessionTitle = auto
		if custom != "" {
			h.SessionTitle = custom
		}
		h.Time = fromMillis(ts)
		h.Snippet = snippet(text, terms, snippetRunes)
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search sessions for %q: %w", query, classify(err))
	}
	return hits, nil
}

// parseQuery splits a user's query into terms: runs of non-space, or the
// text between double quotes. Quote characters never reach FTS5 as syntax.
func parseQuery(q string) []string {
	var terms []string
	var b strings.Builder
	inQuote := false
	flush := func() {
		if t := strings.TrimSpace(b.String()); t != "" {
			terms = append(terms, t)
		}
		b.Reset()
	}
	for _, r := range q {
		switch {
		case r == '"':
			flush()
			inQuote = !inQuote
		case unicode.IsSpace(r) && !inQuote:
			flush()
		case unicode.IsControl(r):
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return terms
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// snippet cuts about width characters of text around the first match of
// any term, HTML-escapes them and wraps every match in <mark>. Matching
// ignores case, like the index.
func snippet(text string, terms []string, width int) string {
	runes := []rune(text)
	lower := make([]rune, len(runes))
	for i, r := range runes {
		lower[i] = unicode.ToLower(r)
	}
	marked := make([]bool, len(runes))
	first := -1
	for _, t := range terms {
		tr := []rune(strings.ToLower(t))
		if len(tr) == 0 {
			continue
		}
		for i := 0; i+len(tr) <= len(lower); i++ {
			if !equalRunes(lower[i:i+len(tr)], tr) {
				continue
			}
			for j := i; j < i+len(tr); j++ {
				marked[j] = true
			}
			if first < 0 || i < first {
				first = i
			}
		}
	}
	start := 0
	if first > width/3 {
		start = first - width/3
	}
	end := min(len(runes), start+width)
	if end-start < width {
		start = max(0, end-width)
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	inMark, lastSpace := false, false
	for i := start; i < end; i++ {
		if marked[i] != inMark {
			if marked[i] {
				b.WriteString("<mark>")
			} else {
				b.WriteString("</mark>")
			}
			inMark = marked[i]
		}
		r := runes[i]
		if unicode.IsSpace(r) {
			if !lastSpace {
				b.WriteByte(' ')
			}
			lastSpace = true
			continue
		}
		lastSpace = false
		b.WriteString(html.EscapeString(string(r)))
	}
	if inMark {
		b.WriteString("</mark>")
	}
	if end < len(runes) {
		b.WriteString("…")
	}
	return b.String()
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
