package llm_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

// stallingServer sends the headers of an event stream and then nothing to
// the first stalls requests, until the client gives up; later requests go
// to next.
func stallingServer(t *testing.T, stalls int32, next http.Handler) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > stalls {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func withStall(d time.Duration) func(*llm.Config) {
	return func(c *llm.Config) { c.StallTimeout = d }
}

func TestStallTimeout(t *testing.T) {
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			t.Run("a stall before any output is retried", func(t *testing.T) {
				t.Parallel()
				script := llmtest.NewServer(t, llmtest.Turn{Text: "after the stall"})
				srv, hits := stallingServer(t, 1, script)
				p := newProvider(t, w, &llmtest.Server{URL: srv.URL}, withStall(500*time.Millisecond))
				resp, rec, err := stream(t, p, hello)
				if err != nil || resp.Text != "after the stall" {
					t.Fatalf("resp %+v, err %v", resp, err)
				}
				retries := rec.of(llm.EventRetry)
				if hits.Load() != 2 || len(retries) != 1 || !strings.Contains(retries[0].Err, "sent nothing for 500ms") {
					t.Errorf("%d requests, retry events %+v", hits.Load(), retries)
				}
			})
			t.Run("a server that keeps stalling fails with a retryable error", func(t *testing.T) {
				t.Parallel()
				srv, hits := stallingServer(t, 100, http.NotFoundHandler())
				p := newProvider(t, w, &llmtest.Server{URL: srv.URL}, withStall(50*time.Millisecond))
				start := time.Now()
				_, _, err := stream(t, p, hello)
				var stall *llm.StallError
				if !errors.As(err, &stall) || !stall.Retryable() || stall.After != 50*time.Millisecond {
					t.Fatalf("err = %v, want a *StallError", err)
				}
				if hits.Load() != int32(fastRetry.MaxAttempts) {
					t.Errorf("%d requests, want %d attempts", hits.Load(), fastRetry.MaxAttempts)
				}
				t.Logf("gave up after %s", time.Since(start).Round(time.Millisecond))
			})
			t.Run("a stall after output keeps what arrived", func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, llmtest.Turn{Text: "partial words before the stall", Hang: true})
				p := newProvider(t, w, srv, withStall(500*time.Millisecond))
				resp, _, err := stream(t, p, hello)
				var stall *llm.StallError
				if !errors.Is(err, llm.ErrStreamCut) || !errors.As(err, &stall) {
					t.Fatalf("err = %v, want a cut stream from a stall", err)
				}
				if resp == nil || !strings.HasPrefix(resp.Text, "partial words") {
					t.Errorf("resp %+v", resp)
				}
				if n := len(srv.ChatRequests()); n != 1 {
					t.Errorf("%d requests: output had streamed, nothing may be retried", n)
				}
			})
		})
	}
}
