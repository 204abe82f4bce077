package capabilities

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// How a text search ranks (each part measured on the retrieval
// evaluation's tune split; testdata/retrieval/README.md):
//
//  1. BM25F over the view's entries for the whole query, with a
//     coordination factor (an entry matching more of the query's words
//     first). An entry's score is then raised by how much of its own name
//     the query covers ("create a task" for create_task), much more when
//     the query spells the name out ("use todoist_get_tasks"), and by how
//     well its server as a whole (the names and summaries of all its tools)
//     matches the query, so the tools of the server a task is about come
//     before a stray tool elsewhere that shares one word.
//  2. A query that names several steps ("find the paper, then summarise it
//     in a Word document") is also ranked step by step, and the rankings are
//     fused by reciprocal rank: the top places then cover the steps rather
//     than the one step with the most words.
//
// On the report split these changes gained on the 2,500-tool catalogs and
// lost a little on the 500-tool ones (README's performance table); reading
// the whole of a long task (MaxQueryRunes) gained on MCP-Bench's paragraphs;
// the Japanese glossary and CJK character pairs are what moved Japanese
// queries.

// rankCandidates bounds how deep each ranking is kept for fusion.
const rankCandidates = 50

// scored is one entry's place in a ranking: g indexes the view's
// partitions' entries in order.
type scored struct {
	g     int
	score float64
}

// searchState is what one search's rankings share: corpus statistics and
// which entries the query's filters admit.
type searchState struct {
	v        *View
	admit    func(Entry) bool
	offsets  []int // a partition's first document in the score arrays
	n        int
	avg      float64
	admitted []int8 // 0 unknown, 1 yes, -1 no
	// nServers and avgServer are the server documents' statistics;
	// serverBase is a partition's first server in the server scores.
	nServers   int
	avgServer  float64
	serverBase []int
	// Buffers the rankings of one search reuse.
	score, server []float64
	matched       []uint64
	inName        []float32
	touched       []int
}

func (v *View) newSearchState(admit func(Entry) bool) *searchState {
	st := &searchState{v: v, admit: admit, offsets: make([]int, len(v.parts)), serverBase: make([]int, len(v.parts))}
	var total, serverTotal float64
	for i, p := range v.parts {
		st.offsets[i] = st.n
		st.n += len(p.entries)
		total += p.index.totalLen
		st.serverBase[i] = st.nServers
		st.nServers += len(p.index.serverLen)
		for _, l := range p.index.serverLen {
			serverTotal += float64(l)
		}
	}
	if st.n > 0 {
		st.avg = total / float64(st.n)
	}
	if st.nServers > 0 {
		st.avgServer = serverTotal / float64(st.nServers)
	}
	st.admitted = make([]int8, st.n)
	return st
}

func (st *searchState) entryAt(g int) (*partition, int32) {
	pi, doc := st.partAt(g)
	return st.v.parts[pi].partition, doc
}

func (st *searchState) partAt(g int) (int, int32) {
	pi := sort.Search(len(st.offsets), func(i int) bool { return st.offsets[i] > g }) - 1
	return pi, int32(g - st.offsets[pi])
}

func (st *searchState) isAdmitted(pi int, doc int32, g int) bool {
	if st.admitted[g] == 0 {
		st.admitted[g] = -1
		if st.v.parts[pi].keep[doc] && st.admit(st.v.parts[pi].entries[doc]) {
			st.admitted[g] = 1
		}
	}
	return st.admitted[g] > 0
}

// serverBoost weighs a server's match against its tool's own: a tool's
// score is multiplied by 1 + serverBoost × (its server's score / the best
// server's score).
const serverBoost = 0.3

// nameCoverBoost weighs how much of a name the query covers.
const nameCoverBoost = 1.0

// exactBoost multiplies the score of a tool the query names verbatim
// ("use todoist_get_tasks"): the model, or its user, knows the name.
const exactBoost = 2.0

// namedInText returns the entries whose name the text spells out: a word of
// letters, digits, '_', '-' and '.' with a separator or a case change in it
// (a dictionary word alone is no evidence of knowing a name).
func (st *searchState) namedInText(text string) map[int]bool {
	out := map[int]bool{}
	for _, w := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) {
		w = strings.Trim(w, ".-_")
		if !looksLikeName(w) {
			continue
		}
		lw := strings.ToLower(w)
		for pi, p := range st.v.parts {
			for _, doc := range p.index.exact[lw] {
				out[st.offsets[pi]+int(doc)] = true
			}
		}
	}
	return out
}

func looksLikeName(w string) bool {
	if strings.ContainsAny(w, "_-") {
		return true
	}
	for i := 1; i < len(w); i++ {
		if w[i-1] >= 'a' && w[i-1] <= 'z' && w[i] >= 'A' && w[i] <= 'Z' {
			return true
		}
	}
	return false
}

// rank scores the admitted entries for terms and returns the best
// rankCandidates, best first; named are entries the text names verbatim.
func (st *searchState) rank(terms []queryTerm, distinct int, named map[int]bool) []scored {
	if st.n == 0 || distinct == 0 {
		return nil
	}
	st.buffers()
	bases := map[string]int{} // base query word → bit
	for _, qt := range terms {
		if _, ok := bases[qt.from]; !ok && len(bases) < 64 {
			bases[qt.from] = len(bases)
		}
	}
	score, matched, inName, server := st.score, st.matched, st.inName, st.server
	touched := st.touched[:0]
	for _, qt := range terms {
		ti := st.term(qt.term)
		if ti.df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(st.n)-float64(ti.df)+0.5)/(float64(ti.df)+0.5))
		bit := uint64(1) << bases[qt.from]
		for _, pp := range ti.docs {
			idx := st.v.parts[pp.part].index
			for _, post := range pp.list {
				g := st.offsets[pp.part] + int(post.doc)
				if !st.isAdmitted(pp.part, post.doc, g) {
					continue
				}
				if score[g] == 0 {
					touched = append(touched, g)
				}
				tf := float64(post.tf)
				norm := 1 - bm25B + bm25B*float64(idx.docLen[post.doc])/st.avg
				score[g] += qt.weight * idf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
				matched[g] |= bit
				if post.fields&(1<<fieldName) != 0 {
					inName[g] += float32(qt.weight)
				}
			}
		}
		if ti.sdf == 0 || st.nServers < 2 {
			continue
		}
		sidf := math.Log(1 + (float64(st.nServers)-float64(ti.sdf)+0.5)/(float64(ti.sdf)+0.5))
		for _, pp := range ti.servers {
			idx := st.v.parts[pp.part].index
			for _, post := range pp.list {
				tf := float64(post.tf)
				norm := 1 - bm25B + bm25B*float64(idx.serverLen[post.doc])/st.avgServer
				server[st.serverBase[pp.part]+int(post.doc)] += qt.weight * sidf * tf * (bm25K1 + 1) / (tf + bm25K1*norm)
			}
		}
	}
	best := 0.0
	for _, s := range server {
		best = max(best, s)
	}
	cands := make([]scored, 0, len(touched))
	for _, g := range touched {
		s := score[g]
		// Coordination: an entry matching more of the query's words ranks
		// above one matching a single word many times.
		coverage := float64(bits.OnesCount64(matched[g])) / float64(distinct)
		s *= coordBase + coverage
		pi, doc := st.partAt(g)
		idx := st.v.parts[pi].index
		// A name the query covers ("create a task" for create_task) says
		// more than the same words scattered over a description.
		if nt := idx.nameTerms[doc]; nt > 0 {
			cover := min(1, float64(inName[g])/float64(nt))
			s *= 1 + nameCoverBoost*cover*cover
		}
		if named[g] {
			s *= 1 + exactBoost
		}
		if sv := idx.serverOf[doc]; best > 0 && sv >= 0 {
			s *= 1 + serverBoost*server[st.serverBase[pi]+int(sv)]/best
		}
		cands = append(cands, scored{g, s})
		score[g], matched[g], inName[g] = 0, 0, 0
	}
	clear(server)
	st.touched = touched
	return st.best(cands, rankCandidates)
}

// termInfo is one term's postings across the view's partitions.
type termInfo struct {
	df, sdf       int
	docs, servers []partPostings
}

type partPostings struct {
	part int
	list []posting
}

// lexicon is a view's partitions' postings merged by term, so a term is
// looked up in each of a view's partitions (a view of 500 servers has 500)
// once, by the first search that needs it, and not again by the next
// search or the next step of the same task. It is safe for concurrent use.
type lexicon struct {
	mu    sync.Mutex
	terms map[string]*termInfo
}

// term returns a term's postings in the view.
func (st *searchState) term(t string) *termInfo {
	lex := &st.v.lex
	lex.mu.Lock()
	defer lex.mu.Unlock()
	if ti, ok := lex.terms[t]; ok {
		return ti
	}
	if lex.terms == nil {
		lex.terms = map[string]*termInfo{}
	}
	ti := &termInfo{}
	for pi, p := range st.v.parts {
		if l := p.index.postings[t]; len(l) > 0 {
			ti.df += len(l)
			ti.docs = append(ti.docs, partPostings{pi, l})
		}
		if l := p.index.serverPostings[t]; len(l) > 0 {
			ti.sdf += len(l)
			ti.servers = append(ti.servers, partPostings{pi, l})
		}
	}
	// Terms a view has never seen are not kept: queries can make any
	// number of them.
	if ti.df > 0 || ti.sdf > 0 {
		lex.terms[t] = ti
	}
	return ti
}

// buffers allocates the score arrays the search's rankings reuse (each
// ranking leaves them zero).
func (st *searchState) buffers() {
	if st.score != nil {
		return
	}
	st.score = make([]float64, st.n)
	st.matched = make([]uint64, st.n)
	st.inName = make([]float32, st.n)
	st.server = make([]float64, st.nServers)
}

// best returns the k best candidates, best first: a bounded selection,
// then a sort of what is left.
func (st *searchState) best(cands []scored, k int) []scored {
	if len(cands) > 2*k {
		// The k-th best score by a partial selection over a copy of the
		// scores; ties at the threshold are all kept and sorted out below.
		scores := make([]float64, len(cands))
		for i, c := range cands {
			scores[i] = c.score
		}
		th := kthLargest(scores, k)
		kept := cands[:0]
		for _, c := range cands {
			if c.score >= th {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	st.sortScored(cands)
	if len(cands) > k {
		cands = cands[:k]
	}
	return cands
}

// kthLargest returns the k-th largest of xs (1-based), reordering xs.
func kthLargest(xs []float64, k int) float64 {
	lo, hi, want := 0, len(xs)-1, k-1
	for lo < hi {
		p := xs[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for xs[i] > p {
				i++
			}
			for xs[j] < p {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case want <= j:
			hi = j
		case want >= i:
			lo = i
		default:
			return xs[want]
		}
	}
	return xs[want]
}

func (st *searchState) sortScored(cands []scored) {
	slices.SortFunc(cands, func(a, b scored) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		pa, da := st.entryAt(a.g)
		pb, db := st.entryAt(b.g)
		return strings.Compare(pa.entries[da].ID, pb.entries[db].ID)
	})
}

// Reciprocal-rank fusion: an entry's fused score is the sum over rankings
// of weight / (rrfK + its place). The whole query's ranking weighs most, so
// its first hit stays first unless the steps agree on another.
const (
	rrfK       = 2.0
	fullWeight = 1.5
	stepWeight = 1.0
)

type weightedRanking struct {
	list   []scored
	weight float64
}

func (st *searchState) fuse(lists []weightedRanking) []scored {
	if len(lists) == 1 {
		return lists[0].list
	}
	fused := map[int]float64{}
	for _, l := range lists {
		for i, s := range l.list {
			fused[s.g] += l.weight / (rrfK + float64(i+1))
		}
	}
	out := make([]scored, 0, len(fused))
	for g, s := range fused {
		out = append(out, scored{g, s})
	}
	st.sortScored(out)
	return out
}

// splitSteps cuts a task into the steps it names: sentences, and the parts
// of a sentence joined by "then", "and then", "after that", "finally",
// numbered items, semicolons; and in Japanese 。 and 、 and て-form joins
// such as してから. A text of one step returns nil.
func splitSteps(text string) []string {
	parts := []string{text}
	for _, sep := range stepSeparators {
		var next []string
		for _, p := range parts {
			next = append(next, splitKeep(p, sep)...)
		}
		parts = next
	}
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if len(Terms(p)) > 0 {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	if len(out) > maxSteps {
		out = out[:maxSteps]
	}
	return out
}

// maxSteps bounds the rankings one search makes.
const maxSteps = 8

var stepSeparators = []string{
	". ", "? ", "! ", "\n", "; ", "。", "？", "！", "、",
	", then ", " and then ", " then ", " after that", " afterwards", " finally", " followed by ", " and also ",
	", and ", " next,", "してから", "した後", "したら", "して、",
}

// splitKeep splits s at each (case-insensitive) occurrence of sep.
func splitKeep(s, sep string) []string {
	lower := strings.ToLower(s)
	var out []string
	for {
		i := strings.Index(lower, sep)
		if i < 0 {
			break
		}
		out = append(out, s[:i])
		s, lower = s[i+len(sep):], lower[i+len(sep):]
	}
	return append(out, s)
}

// indexServers makes a document of each server the entries come from.
func indexServers(idx *partIndex, entries []Entry) {
	idx.serverPostings = map[string][]posting{}
	idx.serverOf = make([]int32, len(entries))
	byServer := map[string]int32{}
	var tfs []map[string]float32
	for i, e := range entries {
		if e.Server == "" {
			idx.serverOf[i] = -1
			continue
		}
		s, ok := byServer[e.Server]
		if !ok {
			s = int32(len(tfs))
			byServer[e.Server] = s
			tfs = append(tfs, map[string]float32{})
			idx.serverLen = append(idx.serverLen, 0)
			for _, t := range Terms(e.Server) {
				tfs[s][t] += serverNameWeight
				idx.serverLen[s] += serverNameWeight
			}
		}
		idx.serverOf[i] = s
		for _, t := range Terms(bareName(e.Descriptor)) {
			tfs[s][t] += serverToolWeight
			idx.serverLen[s] += serverToolWeight
		}
		for _, t := range Terms(e.Summary) {
			tfs[s][t] += serverSummaryWeight
			idx.serverLen[s] += serverSummaryWeight
		}
	}
	for s, tf := range tfs {
		for t, w := range tf {
			idx.serverPostings[t] = append(idx.serverPostings[t], posting{doc: int32(s), tf: w})
		}
	}
}
