package capabilities

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"tinyelf/backend/capabilities/captest"
	"tinyelf/backend/shell"
	"tinyelf/backend/tokens"
	"tinyelf/backend/tools"
	"tinyelf/backend/tools/agent"
	"tinyelf/backend/tools/fs"
	"tinyelf/backend/web"
)

type nopNotifier struct{}

func (nopNotifier) Notify(context.Context, string, string) error { return nil }

// localTools returns the built-in tools as the engine's builder makes them,
// plus ToolSearch.
func localTools(t testing.TB) []tools.Tool {
	t.Helper()
	ws, err := fs.OpenWorkspace(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return []tools.Tool{
		fs.NewRead(ws), fs.NewWrite(ws), fs.NewEdit(ws), fs.NewListDir(ws),
		fs.NewGlob(ws), fs.NewGrep(ws, fs.GrepOptions{}), shell.NewBash(ws, shell.BashOptions{}),
		web.NewSearch(web.SearchOptions{}), web.NewFetch(web.FetchOptions{}),
		agent.NewNotify(nopNotifier{}), agent.NewSessionsYield(), NewToolSearch(),
	}
}

func entriesOf(ts []tools.Tool) []Entry {
	out := make([]Entry, len(ts))
	for i, t := range ts {
		out[i] = ToolEntry(t)
	}
	return out
}

// fixtureCatalog is the 191-tool catalog: the local tools (12), and the
// everything (13), filesystem (14) and GitHub-shaped (152) servers.
func fixtureCatalog(t testing.TB) *Catalog {
	t.Helper()
	c := NewCatalog()
	c.Replace("local", entriesOf(localTools(t)), PartitionOptions{Priority: PriorityLocal})
	for _, srv := range captest.Servers {
		ts, err := captest.Tools(srv)
		if err != nil {
			t.Fatal(err)
		}
		c.Replace("mcp:"+srv, entriesOf(ts), PartitionOptions{Priority: PriorityMCP, Reason: "MCP server " + srv + " connected"})
	}
	return c
}

// skillEntries are fixture skills as catalog entries.
func skillEntries(n int) []Entry {
	var out []Entry
	skills := captest.Skills(n)
	for _, name := range captest.SkillNames(n) {
		desc := skills[name]
		out = append(out, Entry{Descriptor: Descriptor{
			ID: "skill__" + name, Kind: KindSkill, Name: name, Title: name, Summary: desc, Description: desc,
			Source: "skill:builtin", Risk: RiskLow, ReadOnly: true, IndexTokens: tokens.Estimate(name + " — " + desc),
			FullTokens: 400,
		}, LoadDetail: func(context.Context) (Detail, error) { return Detail{Body: "# " + name + "\nsteps…"}, nil }})
	}
	return out
}

type labelled struct {
	query    string
	expected []string
}

func loadQueries(t testing.TB) []labelled {
	t.Helper()
	f, err := os.Open("testdata/queries.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		q, exp, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("bad query line %q", line)
		}
		out = append(out, labelled{query: q, expected: strings.Split(exp, ",")})
	}
	return out
}
