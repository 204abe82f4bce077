package capabilities

import (
	"cmp"
	"errors"
	"fmt"
	"hash/maphash"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The search ranks with BM25F over an in-memory inverted index, one index
// per catalog partition so that replacing a partition re-indexes only it.
// Fields are weighted: the capability's own name counts most, then its
// server, title and summary, then the rest of its description and its
// parameters.

type field uint8

const (
	fieldName field = iota
	fieldServer
	fieldSummary
	fieldKeywords
	fieldDescription
	fieldParams
	numFields
)

var fieldNames = [numFields]string{"name", "server", "summary", "keywords", "description", "parameters"}

var fieldWeight = [numFields]float64{
	fieldName:        3.0,
	fieldServer:      1.5,
	fieldSummary:     1.6,
	fieldKeywords:    1.4,
	fieldDescription: 0.7,
	fieldParams:      0.5,
}

const (
	bm25K1 = 1.2
	bm25B  = 0.6
	// synonymWeight scales the terms a query word expands to.
	synonymWeight = 0.35
	// coordBase is the coordination factor of an entry matching none of
	// the query's words but through synonyms; each matched word adds its
	// share of one.
	coordBase = 0.5
)

// posting is one document's weighted term frequency, and which fields the
// term occurs in (a bit per field), for explaining a hit.
type posting struct {
	doc    int32
	tf     float32
	fields uint8
}

// partIndex is one partition's inverted index.
type partIndex struct {
	postings map[string][]posting
	docLen   []float32
	totalLen float64
	// serverPostings index the partition's servers as documents (their
	// name, their tools' names and summaries), for ranking servers;
	// serverOf is each entry's server there (-1: none).
	serverPostings map[string][]posting
	serverLen      []float32
	serverOf       []int32
	// nameTerms is the number of distinct terms in each entry's own name;
	// exact maps a lower-cased name (and an aggregated tool's own part of
	// it) to the entries that bear it.
	nameTerms []uint8
	exact     map[string][]int32
}

// Weights of a server document's parts.
const (
	serverNameWeight    = 2.0
	serverToolWeight    = 1.0
	serverSummaryWeight = 0.5
)

func buildIndex(entries []Entry) *partIndex {
	idx := &partIndex{postings: map[string][]posting{}, docLen: make([]float32, len(entries)),
		nameTerms: make([]uint8, len(entries)), exact: map[string][]int32{}}
	for i, e := range entries {
		bare := strings.ToLower(bareName(e.Descriptor))
		idx.exact[bare] = append(idx.exact[bare], int32(i))
		if j := strings.LastIndex(bare, "__"); j >= 0 && j+2 < len(bare) {
			idx.exact[bare[j+2:]] = append(idx.exact[bare[j+2:]], int32(i))
		}
		distinct := map[string]bool{}
		for _, t := range Terms(bare) {
			distinct[t] = true
		}
		idx.nameTerms[i] = uint8(min(len(distinct), 255))
		tf := map[string]*posting{}
		var length float64
		for f, text := range docFields(e.Descriptor) {
			w := fieldWeight[f]
			for _, t := range Terms(text) {
				p := tf[t]
				if p == nil {
					p = &posting{doc: int32(i)}
					tf[t] = p
				}
				p.tf += float32(w)
				p.fields |= 1 << f
				length += w
			}
		}
		idx.docLen[i] = float32(length)
		idx.totalLen += length
		for t, p := range tf {
			idx.postings[t] = append(idx.postings[t], *p)
		}
	}
	indexServers(idx, entries)
	return idx
}

// docFields returns the text of each field of a descriptor.
func docFields(d Descriptor) [numFields]string {
	var f [numFields]string
	f[fieldName] = bareName(d)
	f[fieldServer] = d.Server
	title := d.Title
	if title == d.Name || title == bareName(d) {
		title = ""
	}
	f[fieldSummary] = title + " " + d.Summary
	f[fieldKeywords] = strings.Join(d.Keywords, " ")
	desc := d.Description
	if strings.HasPrefix(desc, d.Summary) {
		desc = desc[len(d.Summary):]
	}
	// Descriptions are long for some tools; the start says what matters.
	if len(desc) > 1500 {
		desc = desc[:1500]
	}
	f[fieldDescription] = desc
	f[fieldParams] = strings.Join(d.Params, " ") + " " + d.ParamText
	return f
}

// bareName is a descriptor's name without the mcp__server__ prefix the
// model-facing name carries, so the server does not count twice.
func bareName(d Descriptor) string {
	n := d.Name
	if d.Server != "" {
		if rest, ok := strings.CutPrefix(n, "mcp__"); ok {
			if _, tool, ok := strings.Cut(rest, "__"); ok {
				return tool
			}
		}
	}
	return n
}

// Query is one search of the catalog.
type Query struct {
	// Text is the words to look for (or, with Regex, a regular expression;
	// or SelectPrefix and names separated by commas).
	Text string
	// Kind limits the search to one kind; "" searches all.
	Kind Kind
	// Limit is the most hits returned (0: DefaultLimit).
	Limit int
	// Regex makes Text a regular expression (RE2 syntax, matched
	// case-insensitively against names, summaries and descriptions).
	Regex bool
	// Admit, when set, filters hits (the policy's visibility rules); it is
	// applied before the limit, so filtered hits do not take places.
	Admit func(e Entry) bool
}

// Search limits.
const (
	DefaultLimit = 5
	MaxLimit     = 25
	// MaxQueryRunes bounds a query; longer ones are cut (and said so). A
	// model's query can be the whole task, whose later sentences name steps
	// too (500 cut MCP-Bench's paragraphs in half; 2,000 found 4-7 points
	// more of their tools in the top 5, tune split).
	MaxQueryRunes = 2000
	// maxQueryTerms bounds the distinct terms a query scores.
	maxQueryTerms = 40
)

// Hit is one search result.
type Hit struct {
	Entry Entry
	Score float64
	// Why says what matched ("name: pull, request; summary: merge").
	Why string
}

// ErrEmptyQuery is returned for a query with no words to search for.
var ErrEmptyQuery = errors.New("the query is empty: give a few words that describe the capability you need, e.g. \"create a pull request\"")

// Search ranks the view's entries for a query. It returns the hits, best
// first, and a note when the query was cut.
func (v *View) Search(q Query) ([]Hit, string, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	text := strings.TrimSpace(q.Text)
	note := ""
	if utf8.RuneCountInString(text) > MaxQueryRunes {
		text = string([]rune(text)[:MaxQueryRunes])
		note = fmt.Sprintf("the query was cut to its first %d characters", MaxQueryRunes)
	}
	if text == "" {
		return nil, note, ErrEmptyQuery
	}
	admit := func(e Entry) bool {
		return (q.Kind == "" || e.Kind == q.Kind) && (q.Admit == nil || q.Admit(e))
	}
	var hits []Hit
	var err error
	if rest, ok := cutPrefixFold(text, SelectPrefix); ok && !q.Regex {
		hits, selNote := v.selectNames(rest, admit)
		return hits, joinNote(note, selNote), nil
	}
	if q.Regex {
		hits, err = v.searchRegex(text, admit)
		slices.SortStableFunc(hits, func(a, b Hit) int {
			return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(a.Entry.ID, b.Entry.ID))
		})
		if len(hits) > limit {
			hits = hits[:limit]
		}
	} else {
		hits, err = v.searchText(text, admit, limit)
	}
	if err != nil {
		return nil, note, err
	}
	return hits, note, nil
}

// queryTerm is a term to score, with its weight and the query word it
// came from.
type queryTerm struct {
	term   string
	weight float64
	from   string
}

func expandQuery(text string) ([]queryTerm, int) {
	var out []queryTerm
	have := map[string]int{}
	add := func(t string, w float64, from string) {
		if i, ok := have[t]; ok {
			if w > out[i].weight {
				out[i].weight, out[i].from = w, from
			}
			return
		}
		if len(out) >= maxQueryTerms {
			return
		}
		have[t] = len(out)
		out = append(out, queryTerm{term: t, weight: w, from: from})
	}
	// The English words of a Japanese query's words come first, so a long
	// Japanese text's character pairs do not crowd them out.
	ja := japaneseTerms(text)
	for _, tj := range ja {
		add(tj[0], jaWeight, tj[1])
	}
	base := Terms(text)
	for _, t := range base {
		add(t, 1, t)
	}
	for _, t := range base {
		for _, s := range synonymIndex[t] {
			add(s, synonymWeight, t)
		}
	}
	distinct := 0
	seen := map[string]bool{}
	for _, t := range base {
		if !seen[t] {
			seen[t] = true
			distinct++
		}
	}
	for _, tj := range ja {
		if !seen[tj[1]] {
			seen[tj[1]] = true
			distinct++
		}
	}
	return out, distinct
}

func (v *View) searchText(text string, admit func(Entry) bool, limit int) ([]Hit, error) {
	terms, distinct := expandQuery(text)
	if distinct == 0 {
		return nil, ErrEmptyQuery
	}
	st := v.newSearchState(admit)
	if st.n == 0 {
		return nil, nil
	}
	named := st.namedInText(text)
	lists := []weightedRanking{{st.rank(terms, distinct, named), fullWeight}}
	for _, step := range splitSteps(text) {
		ts, d := expandQuery(step)
		if d > 0 {
			lists = append(lists, weightedRanking{st.rank(ts, d, named), stepWeight})
		}
	}
	cands := st.fuse(lists)
	if len(cands) > limit {
		cands = cands[:limit]
	}
	hits := make([]Hit, 0, len(cands))
	for _, c := range cands {
		p, doc := st.entryAt(c.g)
		hits = append(hits, Hit{Entry: p.entries[doc], Score: c.score, Why: explainDoc(p, doc, terms)})
	}
	return hits, nil
}

// explainDoc says which query terms matched which fields of a document.
func explainDoc(p *partition, doc int32, terms []queryTerm) string {
	fields := map[field][]string{}
	for _, qt := range terms {
		for _, post := range p.index.postings[qt.term] {
			if post.doc != doc {
				continue
			}
			for f := field(0); f < numFields; f++ {
				if post.fields&(1<<f) != 0 && !slices.Contains(fields[f], qt.term) {
					fields[f] = append(fields[f], qt.term)
				}
			}
		}
	}
	return explain(fields)
}

func explain(fields map[field][]string) string {
	var parts []string
	for f := field(0); f < numFields && len(parts) < 3; f++ {
		if ts := fields[f]; len(ts) > 0 {
			if len(ts) > 4 {
				ts = ts[:4]
			}
			parts = append(parts, fieldNames[f]+": "+strings.Join(ts, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

func (v *View) searchRegex(expr string, admit func(Entry) bool) ([]Hit, error) {
	re, err := regexp.Compile("(?i)" + expr)
	if err != nil {
		return nil, fmt.Errorf("the regular expression does not compile: %w (use Go RE2 syntax, e.g. \"pull_?request\", or search with words instead)", err)
	}
	var hits []Hit
	for _, e := range v.entries {
		if !admit(e) {
			continue
		}
		score, why := 0.0, ""
		switch {
		case re.MatchString(e.Name) || re.MatchString(e.ID):
			score, why = 3, "name matches /"+expr+"/"
		case re.MatchString(e.Title) || re.MatchString(e.Summary):
			score, why = 2, "summary matches /"+expr+"/"
		case re.MatchString(e.Description):
			score, why = 1, "description matches /"+expr+"/"
		case re.MatchString(strings.Join(e.Params, " ")):
			score, why = 0.5, "a parameter matches /"+expr+"/"
		}
		if score > 0 {
			hits = append(hits, Hit{Entry: e, Score: score, Why: why})
		}
	}
	return hits, nil
}

// indexCache shares search indexes between partitions of the same
// descriptors in the same order: every session's local tools are much
// alike, and a subagent's are its parent's, so a new session need not
// tokenize them again. An index is never changed once built.
type indexCache struct {
	mu      sync.Mutex
	byPrint map[uint64]cachedIndex
	seed    maphash.Seed
}

type cachedIndex struct {
	names []string // the entries' names, checked on a hit
	index *partIndex
}

// indexCacheSize bounds the indexes kept; past it the cache starts over.
const indexCacheSize = 64

// get returns the index of entries, built or shared.
func (c *indexCache) get(entries []Entry) *partIndex {
	c.mu.Lock()
	if c.byPrint == nil {
		c.byPrint, c.seed = map[uint64]cachedIndex{}, maphash.MakeSeed()
	}
	seed := c.seed
	c.mu.Unlock()
	fp := fingerprint(seed, entries)
	c.mu.Lock()
	hit, ok := c.byPrint[fp]
	c.mu.Unlock()
	if ok && sameNames(hit.names, entries) {
		return hit.index
	}
	idx := buildIndex(entries)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	c.mu.Lock()
	if len(c.byPrint) >= indexCacheSize {
		clear(c.byPrint)
	}
	c.byPrint[fp] = cachedIndex{names: names, index: idx}
	c.mu.Unlock()
	return idx
}

// fingerprint hashes the text buildIndex reads, entry by entry.
func fingerprint(seed maphash.Seed, entries []Entry) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, e := range entries {
		for _, text := range docFields(e.Descriptor) {
			h.WriteString(text)
			h.WriteByte(0)
		}
		h.WriteByte(1)
	}
	return h.Sum64()
}

func sameNames(names []string, entries []Entry) bool {
	if len(names) != len(entries) {
		return false
	}
	for i, e := range entries {
		if names[i] != e.Name {
			return false
		}
	}
	return true
}
