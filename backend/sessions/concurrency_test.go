package sessions

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// checkContiguous fails unless every session's seqs run 1..n and the
// session row's LastSeq is n.
func checkContiguous(t testing.TB, s *Store) map[string]int64 {
	t.Helper()
	rows, err := s.r.Query(`SELECT session_id, COUNT(*), MIN(seq), MAX(seq) FROM events GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	counts := map[string]int64{}
	for rows.Next() {
		var id string
		var n, lo, hi int64
		if err := rows.Scan(&id, &n, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		if lo != 1 || hi != n {
			t.Errorf("session %s: %d events with seqs %d..%d", id, n, lo, hi)
		}
		counts[id] = n
	}
	for id, n := range counts {
		if got := mustGet(t, s, id); got.LastSeq != n {
			t.Errorf("session %s: LastSeq %d, %d events", id, got.LastSeq, n)
		}
	}
	return counts
}

func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	shared := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	const writers, rounds = 6, 25
	own := make([]string, writers)
	for i := range own {
		own[i] = mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"}).ID
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for r := 0; r < 3; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.List(ctx, ListOptions{}); err != nil {
					t.Error(err)
				}
				if _, err := s.Search(ctx, "writer", SearchOptions{}); err != nil {
					t.Error(err)
				}
				if _, err := s.UIMessages(ctx, shared.ID); err != nil {
					t.Error(err)
				}
				if _, err := s.Replay(ctx, shared.ID, 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				msg := func(k int) Event {
					return NewEvent(EventUserMessage, UserMessage{Text: fmt.Sprintf("writer %d round %d part %d", w, r, k)})
				}
				// A single append and a batch, to the shared session and
				// to the writer's own one.
				for _, id := range []string{shared.ID, own[w]} {
					if _, err := s.Append(ctx, id, msg(0)); err != nil {
						t.Error(err)
						return
					}
					if _, err := s.Append(ctx, id, msg(1), msg(2), msg(3)); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	counts := checkContiguous(t, s)
	if counts[shared.ID] != 1+writers*rounds*4 {
		t.Errorf("shared session has %d events, want %d", counts[shared.ID], 1+writers*rounds*4)
	}
	for _, id := range own {
		if counts[id] != 1+rounds*4 {
			t.Errorf("session %s has %d events, want %d", id, counts[id], 1+rounds*4)
		}
	}
	// Each batch landed in one piece, and each writer's events in order.
	ui, _ := s.UIMessages(ctx, shared.ID)
	type pos struct{ w, r, k int }
	parse := func(m UIMessage) pos {
		var p pos
		if _, err := fmt.Sscanf(m.Text, "writer %d round %d part %d", &p.w, &p.r, &p.k); err != nil {
			t.Fatalf("item %d: %q: %v", m.Seq, m.Text, err)
		}
		return p
	}
	last := map[int]pos{}
	for i := 0; i < len(ui); i++ {
		p := parse(ui[i])
		if p.k == 1 {
			if i+2 >= len(ui) || parse(ui[i+1]) != (pos{p.w, p.r, 2}) || parse(ui[i+2]) != (pos{p.w, p.r, 3}) {
				t.Fatalf("batch of writer %d round %d split at seq %d", p.w, p.r, ui[i].Seq)
			}
		}
		if prev, ok := last[p.w]; ok && (p.r < prev.r || p.r == prev.r && p.k <= prev.k) {
			t.Fatalf("writer %d: %+v after %+v", p.w, p, prev)
		}
		last[p.w] = p
	}
	checkRebuildMatches(t, s)
}
