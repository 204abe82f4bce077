package sessions

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// crashChildEnv, when set to a database path, makes TestCrashChild write to
// it until it is killed.
const crashChildEnv = "TINYELF_SESSIONS_CRASH_CHILD_DB"

// TestCrashChild is the process TestCrashSafety kills: it appends events
// as fast as it can (single events, batches, whole turns, renames, deletes)
// and prints "committed ID SEQ" after each write returns.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("open failed:", err)
		os.Exit(2)
	}
	all, err := s.List(ctx, ListOptions{Limit: 1000, Deleted: IncludeDeleted})
	if err != nil {
		fmt.Println("list failed:", err)
		os.Exit(2)
	}
	var ids []string
	for _, sess := range all {
		ids = append(ids, sess.ID)
	}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	out := bufio.NewWriter(os.Stdout)
	report := func(id string, seq int64) {
		fmt.Fprintf(out, "committed %s %d\n", id, seq)
		out.Flush()
	}
	fmt.Fprintln(out, "ready")
	out.Flush()
	batch := 0
	for i := 0; ; i++ {
		if len(ids) == 0 || rng.IntN(25) == 0 {
			sess, err := s.Create(ctx, SessionCreated{Workspace: "/w", Mode: "default"})
			if err != nil {
				fmt.Println("create failed:", err)
				os.Exit(2)
			}
			ids = append(ids, sess.ID)
			report(sess.ID, 1)
			continue
		}
		id := ids[rng.IntN(len(ids))]
		var evs []Event
		switch n := rng.IntN(10); {
		case n < 4: // a single event
			evs = []Event{NewEvent(EventUserMessage, UserMessage{Text: fmt.Sprintf("single %d from %d 東京で会議", i, os.Getpid())})}
		case n < 7: // a marked batch: all of it or none must survive
			batch++
			size := 2 + rng.IntN(60)
			for k := 1; k <= size; k++ {
				evs = append(evs, NewEvent(EventUserMessage, UserMessage{Text: fmt.Sprintf("batch %d-%d part %d of %d", os.Getpid(), batch, k, size)}))
			}
		case n < 9: // a whole turn, with tool results that update UI items
			evs = conversation(fmt.Sprintf("turn %d", i), fmt.Sprintf("call-%d-%d", os.Getpid(), i))
			if rng.IntN(3) == 0 {
				evs = append(evs, NewEvent(EventCompaction, Compaction{Summary: "summary", UpToSeq: int64(rng.IntN(20))}))
			}
		default:
			var err error
			switch rng.IntN(3) {
			case 0:
				err = s.Rename(ctx, id, fmt.Sprintf("renamed %d", i))
			case 1:
				err = s.Delete(ctx, id)
			default:
				err = s.Restore(ctx, id)
			}
			if err != nil {
				fmt.Println("write failed:", err)
				os.Exit(2)
			}
			continue
		}
		stored, err := s.Append(ctx, id, evs...)
		if err != nil {
			fmt.Println("append failed:", err)
			os.Exit(2)
		}
		report(id, stored[len(stored)-1].Seq)
	}
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped in -short")
	}
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sessions.db")
	committed := map[string]int64{} // the last seq each child saw committed
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	const kills = 8
	for round := 0; round < kills; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		if l, ok := <-lines; !ok || l != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child said %q", round, l)
		}
		delay := time.Duration(10+rng.IntN(250)) * time.Millisecond
		killed := time.After(delay)
		writes := 0
	collect:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("round %d: child exited before it was killed", round)
				}
				var id string
				var seq int64
				if _, err := fmt.Sscanf(l, "committed %s %d", &id, &seq); err != nil {
					cmd.Process.Kill()
					t.Fatalf("round %d: child: %s", round, l)
				}
				committed[id] = max(committed[id], seq)
				writes++
			case <-killed:
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				break collect
			}
		}
		for l := range lines { // what was reported before the kill landed
			var id string
			var seq int64
			if _, err := fmt.Sscanf(l, "committed %s %d", &id, &seq); err == nil {
				committed[id] = max(committed[id], seq)
				writes++
			}
		}
		cmd.Wait()
		t.Logf("round %d: killed after %v and %d writes", round, delay, writes)
		checkAfterCrash(t, path, committed)
	}
}

// checkAfterCrash opens the database a child was killed writing to and
// checks that it is whole.
func checkAfterCrash(t *testing.T, path string, committed map[string]int64) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("integrity after kill: %v", err)
	}
	counts := checkContiguous(t, s)
	for id, seq := range committed {
		if counts[id] < seq {
			t.Errorf("session %s: seq %d was reported committed, the log ends at %d", id, seq, counts[id])
		}
	}
	// Every batch survived whole or not at all.
	texts, err := queryStrings(ctx, s.r, `SELECT json_extract(data, '$.text') FROM events
		WHERE type = 'user.message' AND json_extract(data, '$.text') LIKE 'batch %'`)
	if err != nil {
		t.Fatal(err)
	}
	seen, sizes := map[string]int{}, map[string]int{}
	for _, text := range texts {
		var b string
		var k, n int
		if _, err := fmt.Sscanf(text, "batch %s part %d of %d", &b, &k, &n); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		seen[b]++
		sizes[b] = n
	}
	for b, n := range seen {
		if n != sizes[b] {
			t.Errorf("batch %s: %d of %d events survived", b, n, sizes[b])
		}
	}
	checkRebuildMatches(t, s)
	// The store keeps working.
	list, err := s.List(ctx, ListOptions{Limit: 1, Deleted: IncludeDeleted})
	if err != nil || len(list) == 0 {
		t.Fatalf("List after crash: %v, %v", list, err)
	}
	if _, err := s.Append(ctx, list[0].ID, conversation("after the crash", "after")...); err != nil {
		t.Fatalf("append after crash: %v", err)
	}
	if hits, err := s.Search(ctx, "after the crash", SearchOptions{IncludeDeleted: true}); err != nil || len(hits) == 0 {
		t.Errorf("search after crash: %d hits, %v", len(hits), err)
	}
}
