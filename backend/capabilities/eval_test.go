package capabilities

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	tmcp "tinyelf/backend/mcp"
	"tinyelf/backend/tools"
	"tinyelf/internal/cputime"
)

// The retrieval evaluation: public MCP servers' tool lists and public
// benchmarks' tasks with their own labels (testdata/retrieval/README.md
// says where each comes from). Each task is in the tune split (looked at
// while improving the ranker) or the report split (only measured), fixed by
// a hash of its id before any tuning.

// evalServer is one server's tool list as the source published it.
type evalServer struct {
	Src    string     `json:"src"`
	Server string     `json:"server"`
	Key    string     `json:"key"`
	About  string     `json:"about"`
	Tools  []evalTool `json:"tools"`
}

type evalTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// evalTask is one labelled task: Expect holds the steps it needs, each the
// tools ("Server::tool") any one of which does that step.
type evalTask struct {
	ID     string     `json:"id"`
	Src    string     `json:"src"`
	Level  int        `json:"level"`
	Kind   string     `json:"kind"` // "task" (a paragraph or several steps) or "query" (one line)
	Lang   string     `json:"lang"` // "" is English; "ja" a translation
	Text   string     `json:"text"`
	Expect [][]string `json:"expect"`
	Split  string     `json:"split"`
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []T
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return out
}

var evalData = sync.OnceValues(func() ([]evalServer, []evalTask) {
	var tb fatalTB
	servers := readJSONL[evalServer](&tb, "testdata/retrieval/catalogs.jsonl.gz")
	tasks := readJSONL[evalTask](&tb, "testdata/retrieval/tasks.jsonl.gz")
	return servers, append(tasks, translations(&tb, tasks, "testdata/retrieval/tasks_ja.tsv", "ja")...)
})

// translations reads a file of translated tasks (id or unique id prefix,
// tab, text); each keeps the labels and split of the task it translates.
func translations(t testing.TB, tasks []evalTask, path, lang string) []evalTask {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []evalTask
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: bad line %q", path, line)
		}
		var found []evalTask
		for _, task := range tasks {
			if task.ID == id {
				found = []evalTask{task}
				break
			}
			if strings.HasPrefix(task.ID, id) {
				found = append(found, task)
			}
		}
		if len(found) != 1 {
			t.Fatalf("%s: %q names %d tasks", path, id, len(found))
		}
		tr := found[0]
		tr.ID, tr.Text, tr.Lang = tr.ID+"#"+lang, text, lang
		out = append(out, tr)
	}
	return out
}

// fatalTB lets the shared loader fail loudly outside a test's goroutine.
type fatalTB struct{ testing.TB }

func (fatalTB) Helper() {}
func (fatalTB) Fatal(args ...any) {
	panic(fmt.Sprint(args...))
}
func (fatalTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// evalCatalog is one catalog of the evaluation with the tasks it answers,
// their labels mapped to the model-facing tool names.
type evalCatalog struct {
	Name  string
	View  *View
	Tools int
	Tasks []evalTask // Expect holds model-facing names
}

// The evaluation's catalogs.
const (
	// catLive is LiveMCPBench's 70 servers (527 tools), one MCP server each.
	catLive = "live527"
	// catBench is MCP-Bench's 28 servers with GitHub's and Notion's
	// official servers and four reference servers beside them.
	catBench = "mcpbench500"
	// catMSC500 is a hash-chosen part of MSC-Bench's servers, about 500 tools.
	catMSC500 = "msc500"
	// catMix is every server above and more of MSC-Bench's, about 2,500 tools.
	catMix = "mix2500"
	// catHub is MSC-Bench's 2,375 tools behind one aggregating server.
	catHub = "hub2375"
)

var evalCatalogNames = []string{catLive, catBench, catMSC500, catMix, catHub}

// benchDistractors are the servers added to MCP-Bench's own: official
// servers a user would connect too (LiveMCPTool's listing of Playwright's,
// the reference git, memory and filesystem servers).
var benchDistractors = map[string]bool{"github": true, "notion": true, "playwright": true, "git": true, "memory": true, "filesystem": true}

// mscServerBucket orders MSC-Bench's servers by a hash of their names, so
// the part of them a catalog takes is fixed and unrelated to the tasks.
func mscServerBucket(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

var evalCatalogs = sync.OnceValue(buildEvalCatalogs)

func buildEvalCatalogs() map[string]*evalCatalog {
	servers, tasks := evalData()
	var msc []evalServer
	for _, s := range servers {
		if s.Src == "msc" {
			msc = append(msc, s)
		}
	}
	slices.SortStableFunc(msc, func(a, b evalServer) int {
		return int(int64(mscServerBucket(a.Server)) - int64(mscServerBucket(b.Server)))
	})
	take := func(from []evalServer, n int) []evalServer {
		var out []evalServer
		count := 0
		for _, s := range from {
			if count >= n {
				break
			}
			out = append(out, s)
			count += len(s.Tools)
		}
		return out
	}
	pick := func(keep func(evalServer) bool) []evalServer {
		var out []evalServer
		for _, s := range servers {
			if keep(s) {
				out = append(out, s)
			}
		}
		return out
	}
	live := pick(func(s evalServer) bool { return s.Src == "live" })
	bench := pick(func(s evalServer) bool {
		return s.Src == "mcpbench" || s.Src == "github" || s.Src == "notion" || (s.Src == "live" && benchDistractors[s.Key])
	})
	mix := pick(func(s evalServer) bool {
		return s.Src == "live" || s.Src == "mcpbench" || s.Src == "github" || s.Src == "notion"
	})
	mixTools := 0
	for _, s := range mix {
		mixTools += len(s.Tools)
	}
	mix = append(mix, take(msc, 2500-mixTools)...)
	out := map[string]*evalCatalog{
		catLive:   buildEvalCatalog(catLive, live, false, tasks, "live"),
		catBench:  buildEvalCatalog(catBench, bench, false, tasks, "mcpbench"),
		catMSC500: buildEvalCatalog(catMSC500, take(msc, 500), false, tasks, "msc"),
		catMix:    buildEvalCatalog(catMix, mix, false, tasks, "live", "mcpbench", "msc"),
		catHub:    buildEvalCatalog(catHub, msc, true, tasks, "msc"),
	}
	return out
}

// buildEvalCatalog makes a catalog of servers, each its own MCP server, or
// with hub all behind one aggregating server whose tool names carry the
// server's key (as MCP aggregators name them). It keeps the tasks of srcs
// whose every step has a tool in the catalog, each step narrowed to those.
func buildEvalCatalog(name string, servers []evalServer, hub bool, tasks []evalTask, srcs ...string) *evalCatalog {
	c := NewCatalog()
	names := map[string]string{} // Server::tool → model-facing name
	usedKeys := map[string]int{}
	var hubEntries []Entry
	n := 0
	for _, s := range servers {
		key := s.Key
		if usedKeys[key]++; usedKeys[key] > 1 {
			key = fmt.Sprintf("%s-%d", key, usedKeys[key])
		}
		var es []Entry
		for _, t := range s.Tools {
			srv, tool := key, t.Name
			if hub {
				srv, tool = "hub", key+"__"+t.Name
			}
			mname := tmcp.ToolName(srv, tool)
			if _, dup := names[s.Server+"::"+t.Name]; dup {
				continue
			}
			names[s.Server+"::"+t.Name] = mname
			es = append(es, ToolEntry(evalMCPTool{info: tools.Info{
				Name: mname, Description: "[MCP server " + srv + "] " + t.Description, Parameters: t.Schema,
				Source: tools.SourceMCP, Origin: srv,
			}}))
		}
		n += len(es)
		if hub {
			hubEntries = append(hubEntries, es...)
			continue
		}
		c.Replace("mcp:"+key, es, PartitionOptions{Priority: PriorityMCP})
	}
	if hub {
		c.Replace("mcp:hub", hubEntries, PartitionOptions{Priority: PriorityMCP})
	}
	ec := &evalCatalog{Name: name, View: c.Snapshot().View(""), Tools: n}
	for _, t := range tasks {
		if !slices.Contains(srcs, t.Src) {
			continue
		}
		var steps [][]string
		for _, step := range t.Expect {
			var alts []string
			for _, id := range step {
				if m, ok := names[id]; ok {
					alts = append(alts, m)
				}
			}
			if len(alts) == 0 {
				steps = nil
				break
			}
			steps = append(steps, alts)
		}
		if steps == nil {
			continue
		}
		t.Expect = steps
		ec.Tasks = append(ec.Tasks, t)
	}
	return ec
}

type evalMCPTool struct{ info tools.Info }

func (t evalMCPTool) Info() tools.Info { return t.info }
func (t evalMCPTool) Execute(context.Context, map[string]any) (tools.Result, error) {
	return tools.Text("ok"), nil
}

// retrievalScores are a set of tasks' mean figures. HitAt1/HitAt5: the
// share of tasks with any expected tool in the top 1/5. RecallAt1/At5: the
// share of a task's steps with a tool in the top 1/5, averaged over tasks.
// NDCG5: nDCG@5 with binary relevance, a hit counting when it does a step
// no better-ranked hit did, the ideal ranking doing min(steps, 5) of them.
type retrievalScores struct {
	N                                           int
	HitAt1, HitAt5, RecallAt1, RecallAt5, NDCG5 float64
}

// scoreRanking scores one task's ranked names against its steps.
func scoreRanking(steps [][]string, ranked []string) (hit1, hit5, rec1, rec5, ndcg float64) {
	done := make([]bool, len(steps))
	var dcg float64
	doneAt1, doneAt5 := 0, 0
	for i, name := range ranked {
		if i >= 5 {
			break
		}
		for s, alts := range steps {
			if !done[s] && slices.Contains(alts, name) {
				done[s] = true
				dcg += 1 / math.Log2(float64(i+2))
				doneAt5++
				if i == 0 {
					doneAt1++
				}
				break
			}
		}
	}
	var idcg float64
	for i := 0; i < min(len(steps), 5); i++ {
		idcg += 1 / math.Log2(float64(i+2))
	}
	n := float64(len(steps))
	if doneAt1 > 0 {
		hit1 = 1
	}
	if doneAt5 > 0 {
		hit5 = 1
	}
	return hit1, hit5, float64(doneAt1) / n, float64(doneAt5) / n, dcg / idcg
}

// searchNames ranks a task the way ToolSearch does (every tool admitted)
// and returns the top five names.
func searchNames(t testing.TB, v *View, text string) []string {
	hits, _, err := v.Search(Query{Text: text, Kind: KindTool, Limit: 5})
	if err != nil {
		t.Fatalf("search %.60q: %v", text, err)
	}
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Entry.Name
	}
	return out
}

// evaluate scores the tasks that keep returns true for.
func evaluate(t testing.TB, c *evalCatalog, keep func(evalTask) bool, miss func(evalTask, []string)) retrievalScores {
	var r retrievalScores
	for _, task := range c.Tasks {
		if !keep(task) {
			continue
		}
		got := searchNames(t, c.View, task.Text)
		h1, h5, r1, r5, nd := scoreRanking(task.Expect, got)
		if h5 == 0 && miss != nil {
			miss(task, got)
		}
		r.N++
		r.HitAt1 += h1
		r.HitAt5 += h5
		r.RecallAt1 += r1
		r.RecallAt5 += r5
		r.NDCG5 += nd
	}
	if r.N > 0 {
		n := float64(r.N)
		r.HitAt1, r.HitAt5, r.RecallAt1, r.RecallAt5, r.NDCG5 = r.HitAt1/n, r.HitAt5/n, r.RecallAt1/n, r.RecallAt5/n, r.NDCG5/n
	}
	return r
}

// evalGroup is one row of the figures: a catalog's tasks from one source,
// of one kind and language, in one split.
type evalGroup struct {
	catalog, src, kind, lang, split string
}

func (g evalGroup) String() string {
	lang := g.lang
	if lang == "" {
		lang = "en"
	}
	return g.catalog + "/" + g.src + "-" + g.kind + "-" + lang + "/" + g.split
}

func (g evalGroup) keep(t evalTask) bool {
	return t.Src == g.src && t.Kind == g.kind && t.Lang == g.lang && t.Split == g.split
}

// evalGroups lists the groups that have tasks, in a fixed order.
func evalGroups(split string) []evalGroup {
	cats := evalCatalogs()
	var out []evalGroup
	for _, name := range evalCatalogNames {
		for _, src := range []string{"live", "mcpbench", "msc"} {
			for _, kind := range []string{"task", "query"} {
				for _, lang := range []string{"", "ja"} {
					g := evalGroup{name, src, kind, lang, split}
					if slices.ContainsFunc(cats[name].Tasks, g.keep) {
						out = append(out, g)
					}
				}
			}
		}
	}
	return out
}

func fmtScores(r retrievalScores) string {
	return fmt.Sprintf("n=%4d hit@1 %.3f hit@5 %.3f recall@1 %.3f recall@5 %.3f nDCG@5 %.3f",
		r.N, r.HitAt1, r.HitAt5, r.RecallAt1, r.RecallAt5, r.NDCG5)
}

// TestRetrievalTune prints the tune split's figures and misses (with -v);
// it is what one looks at while changing the ranker. The report split is
// only measured, by BenchmarkToolSearchRecall and the floors.
func TestRetrievalTune(t *testing.T) {
	if testing.Short() || os.Getenv("TINYELF_RETRIEVAL_TUNE") == "" {
		t.Skip("set TINYELF_RETRIEVAL_TUNE=1 (TINYELF_RETRIEVAL_TUNE=misses lists the misses)")
	}
	cats := evalCatalogs()
	for _, g := range evalGroups("tune") {
		var miss func(evalTask, []string)
		if os.Getenv("TINYELF_RETRIEVAL_TUNE") == "misses" {
			miss = func(task evalTask, got []string) {
				t.Logf("  miss %s %.120q\n     want %v\n     got  %v", task.ID, task.Text, task.Expect, got)
			}
		}
		r := evaluate(t, cats[g.catalog], g.keep, miss)
		t.Logf("%-28s %s", g, fmtScores(r))
	}
}

// BenchmarkToolSearchRecall reports the evaluation's figures per catalog,
// kind of task, language and split as custom metrics (the timing is
// incidental): go test -run '^$' -bench ToolSearchRecall -benchtime 1x.
func BenchmarkToolSearchRecall(b *testing.B) {
	cats := evalCatalogs()
	for _, split := range []string{"report", "tune"} {
		for _, g := range evalGroups(split) {
			b.Run(g.String(), func(b *testing.B) {
				var r retrievalScores
				for b.Loop() {
					r = evaluate(b, cats[g.catalog], g.keep, nil)
				}
				b.ReportMetric(r.HitAt1, "hit@1")
				b.ReportMetric(r.HitAt5, "hit@5")
				b.ReportMetric(r.RecallAt1, "recall@1")
				b.ReportMetric(r.RecallAt5, "recall@5")
				b.ReportMetric(r.NDCG5, "nDCG@5")
				b.ReportMetric(float64(r.N), "tasks")
				b.ReportMetric(float64(cats[g.catalog].Tools), "tools")
			})
		}
	}
	b.Run("fixture191/query-en/written-here", func(b *testing.B) {
		v := fixtureCatalog(b).Snapshot().View("")
		qs := loadQueries(b)
		var r retrievalScores
		for b.Loop() {
			r = retrievalScores{}
			for _, q := range qs {
				steps := [][]string{q.expected} // any of its tools answers the one step
				h1, h5, r1, r5, nd := scoreRanking(steps, searchNames(b, v, q.query))
				r.N++
				r.HitAt1, r.HitAt5, r.RecallAt1, r.RecallAt5, r.NDCG5 = r.HitAt1+h1, r.HitAt5+h5, r.RecallAt1+r1, r.RecallAt5+r5, r.NDCG5+nd
			}
		}
		n := float64(r.N)
		b.ReportMetric(r.HitAt1/n, "hit@1")
		b.ReportMetric(r.HitAt5/n, "hit@5")
		b.ReportMetric(r.NDCG5/n, "nDCG@5")
		b.ReportMetric(n, "tasks")
	})
}

// TestToolSearchRecallFloor holds ToolSearch to its figures on the report
// split: each floor is a little under what the ranking reached when it was
// set, so a change that loses ground fails here. Raise a floor when a
// change gains; lowering one needs the reason in the commit.
func TestToolSearchRecallFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the evaluation's catalogs (a few seconds)")
	}
	cats := evalCatalogs()
	for _, f := range []struct {
		g                         evalGroup
		hit1, hit5, recall5, ndcg float64
	}{
		{evalGroup{catLive, "live", "task", "", "report"}, 0.39, 0.58, 0.36, 0.35},
		{evalGroup{catLive, "live", "task", "ja", "report"}, 0.17, 0.49, 0.26, 0.22},
		{evalGroup{catBench, "mcpbench", "task", "", "report"}, 0.64, 0.87, 0.41, 0.60},
		{evalGroup{catMSC500, "msc", "task", "", "report"}, 0.91, 0.98, 0.97, 0.94},
		{evalGroup{catMSC500, "msc", "query", "", "report"}, 0.79, 0.89, 0.89, 0.85},
		{evalGroup{catMSC500, "msc", "query", "ja", "report"}, 0.60, 0.86, 0.86, 0.73},
		{evalGroup{catMix, "live", "task", "", "report"}, 0.32, 0.46, 0.28, 0.27},
		{evalGroup{catMix, "live", "task", "ja", "report"}, 0.12, 0.39, 0.21, 0.18},
		{evalGroup{catMix, "mcpbench", "task", "", "report"}, 0.48, 0.84, 0.31, 0.48},
		{evalGroup{catMix, "msc", "task", "", "report"}, 0.90, 0.98, 0.85, 0.85},
		{evalGroup{catMix, "msc", "query", "", "report"}, 0.82, 0.92, 0.92, 0.88},
		{evalGroup{catMix, "msc", "query", "ja", "report"}, 0.42, 0.66, 0.66, 0.55},
		{evalGroup{catHub, "msc", "task", "", "report"}, 0.86, 0.96, 0.81, 0.82},
		{evalGroup{catHub, "msc", "query", "", "report"}, 0.85, 0.94, 0.94, 0.90},
		{evalGroup{catHub, "msc", "query", "ja", "report"}, 0.46, 0.66, 0.66, 0.57},
	} {
		r := evaluate(t, cats[f.g.catalog], f.g.keep, nil)
		if r.N < 25 {
			t.Errorf("%s: only %d tasks", f.g, r.N)
		}
		for _, m := range []struct {
			name       string
			got, floor float64
		}{{"hit@1", r.HitAt1, f.hit1}, {"hit@5", r.HitAt5, f.hit5}, {"recall@5", r.RecallAt5, f.recall5}, {"nDCG@5", r.NDCG5, f.ndcg}} {
			if m.got < m.floor {
				t.Errorf("%s: %s %.3f is below its floor %.2f", f.g, m.name, m.got, m.floor)
			}
		}
	}
}

func TestScoreRanking(t *testing.T) {
	steps := [][]string{{"a", "a2"}, {"b"}, {"c"}}
	for _, tc := range []struct {
		ranked                     []string
		hit1, hit5, rec1, rec5, nd float64
	}{
		{[]string{"a", "b", "c"}, 1, 1, 1.0 / 3, 1, 1},
		{[]string{"x", "a2", "a", "b"}, 0, 1, 0, 2.0 / 3, (1/math.Log2(3) + 1/math.Log2(5)) / (1 + 1/math.Log2(3) + 1/math.Log2(4))},
		{[]string{"x", "y", "z", "w", "v", "a"}, 0, 0, 0, 0, 0}, // the sixth place does not count
	} {
		h1, h5, r1, r5, nd := scoreRanking(steps, tc.ranked)
		if h1 != tc.hit1 || h5 != tc.hit5 || math.Abs(r1-tc.rec1) > 1e-9 || math.Abs(r5-tc.rec5) > 1e-9 || math.Abs(nd-tc.nd) > 1e-9 {
			t.Errorf("%v: got %v %v %v %v %v, want %v %v %v %v %v", tc.ranked, h1, h5, r1, r5, nd, tc.hit1, tc.hit5, tc.rec1, tc.rec5, tc.nd)
		}
	}
}

// BenchmarkToolSearchLarge times one search over the evaluation's large
// catalogs, cycling through their tasks: paragraph tasks over 2,461 tools
// (many servers) and one-line queries over 2,375 tools behind one server.
func BenchmarkToolSearchLarge(b *testing.B) {
	cats := evalCatalogs()
	for _, g := range []evalGroup{{catMix, "live", "task", "", "report"}, {catHub, "msc", "query", "", "report"}} {
		b.Run(g.catalog+"/"+g.kind+"/first-of-a-view", func(b *testing.B) {
			// A new session's view: its first search looks its terms up in
			// every partition.
			c := cats[g.catalog]
			texts := kindTexts(c, g.kind)
			for i := 0; b.Loop(); i++ {
				v := c.View.Snapshot.View(fmt.Sprint("bench-", i))
				if _, _, err := v.Search(Query{Text: texts[i%len(texts)], Kind: KindTool}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(g.catalog+"/"+g.kind, func(b *testing.B) {
			c := cats[g.catalog]
			texts := kindTexts(c, g.kind)
			b.ReportMetric(float64(c.View.Len()), "descriptors")
			b.ResetTimer()
			cpu := cputime.Self()
			for i := 0; b.Loop(); i++ {
				if _, _, err := c.View.Search(Query{Text: texts[i%len(texts)], Kind: KindTool}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Self()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

func kindTexts(c *evalCatalog, kind string) []string {
	var texts []string
	for _, task := range c.Tasks {
		if task.Kind == kind && task.Lang == "" {
			texts = append(texts, task.Text)
		}
	}
	return texts
}
