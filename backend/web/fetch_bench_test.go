package web

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tinyelf/internal/cputime"
)

// benchArticle is a news-shaped page of about size bytes: header,
// navigation, an article of paragraphs with links and a table, a footer.
func benchArticle(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Benchmark article</title>` +
		`<script>var x = 1;</script></head><body><header><nav><a href="/">Home</a> <a href="/news">News</a></nav></header>` +
		`<main><article><h1>Benchmark article</h1><p class="byline">By A. Writer</p>`)
	for i := 0; b.Len() < size-2000; i++ {
		fmt.Fprintf(&b, `<p>Paragraph %d of the article, with <a href="/link/%d">a relative link</a>, some <em>emphasis</em> and enough words to look like prose that readability will score as content rather than boilerplate.</p>`, i, i)
		if i%50 == 0 {
			fmt.Fprintf(&b, `<h2>Section %d</h2><table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>%d</td></tr></table>`, i, i)
		}
	}
	b.WriteString(`</article></main><footer><p>© Benchmark</p></footer></body></html>`)
	return b.Bytes()
}

// BenchmarkWebFetchArticle1MB measures WebFetch of a 1 MB article page
// from loopback to Markdown: fetch, readability, conversion, no summary.
// Goal: under 50 ms median.
func BenchmarkWebFetchArticle1MB(b *testing.B) {
	page := benchArticle(1 << 20)
	srv := httptest.NewServer(serveHTML(page, "text/html; charset=utf-8"))
	defer srv.Close()
	tool := NewFetch(FetchOptions{Net: allowLocal()})
	ctx := approved()
	params := map[string]any{"url": srv.URL + "/article", "raw": true}
	var durations []time.Duration
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		start := time.Now()
		res, err := tool.Execute(ctx, params)
		durations = append(durations, time.Since(start))
		if err != nil || res.IsError || res.Meta["kind"] != "article" {
			b.Fatalf("%v %v %v", err, res.Meta["kind"], res.Content[:min(300, len(res.Content))])
		}
	}
	b.ReportMetric(float64(median(durations).Microseconds())/1000, "median-ms")
	// On a shared machine wall time includes waiting for a CPU; the
	// process CPU time per call is the figure that does not.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(len(durations)), "cpu-ms/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration { return cputime.Self() }

// BenchmarkWebFetch5MBMemory measures the peak heap above idle while
// WebFetch reads and converts a 5 MB page. Goal: under 30 MB.
func BenchmarkWebFetch5MBMemory(b *testing.B) {
	page := benchArticle(5 << 20)
	srv := httptest.NewServer(serveHTML(page, "text/html; charset=utf-8"))
	defer srv.Close()
	tool := NewFetch(FetchOptions{Net: allowLocal()})
	ctx := approved()
	params := map[string]any{"url": srv.URL + "/big", "raw": true}
	var peakAbove uint64
	for b.Loop() {
		runtime.GC()
		idle := heapObjects()
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(200 * time.Microsecond)
			defer t.Stop()
			for {
				if h := heapObjects(); h > peak.Load() {
					peak.Store(h)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		res, err := tool.Execute(ctx, params)
		close(stop)
		wg.Wait()
		if err != nil || res.IsError {
			b.Fatal(err, res.Content)
		}
		if p := peak.Load(); p > idle && p-idle > peakAbove {
			peakAbove = p - idle
		}
	}
	b.ReportMetric(float64(peakAbove)/(1<<20), "peak-MB-above-idle")
}

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
