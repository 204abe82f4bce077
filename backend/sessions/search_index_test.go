package sessions

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchCount is how many hits a search finds (at most 100).
func searchCount(t *testing.T, s *Store, query string) int {
	t.Helper()
	hits, err := s.Search(context.Background(), query, SearchOptions{Limit: 100, IncludeDeleted: true})
	if err != nil {
		t.Fatalf("Search(%q): %v", query, err)
	}
	return len(hits)
}

func say(text string) Event { return NewEvent(EventUserMessage, UserMessage{Text: text}) }

func TestSearchIndexCatchesUpAfterWrites(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	for i := range 5 {
		mustAppend(t, s, sess.ID, say(fmt.Sprint("the walrus number ", i)))
	}
	// Nobody searches: the index catches up by itself.
	deadline := time.Now().Add(10 * time.Second)
	for {
		waiting, err := s.searchWaiting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the messages were still waiting for the search index after 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := searchCount(t, s, "walrus"); n != 5 {
		t.Fatalf("found %d of 5 messages", n)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestSearchFindsWhatWasJustWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openStoreAt(t, path)
	other := openStoreAt(t, path)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	for i := range 3 {
		mustAppend(t, s, sess.ID, say(fmt.Sprint("a narwhal, ", i)))
		if n := searchCount(t, s, "narwhal"); n != i+1 {
			t.Fatalf("after %d messages the search found %d", i+1, n)
		}
	}
	// Written by another process, searched here at once.
	mustAppend(t, other, sess.ID, say("one more narwhal"))
	if n := searchCount(t, s, "narwhal"); n != 4 {
		t.Fatalf("the other process's message was not found: %d hits", n)
	}
}

func TestSearchIndexAfterACrash(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.stopMaintenance() // the process dies before the index catches up
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, sess.ID, say("the lost albatross"), say("another albatross"))
	if waiting, err := s.searchWaiting(ctx); err != nil || !waiting {
		t.Fatalf("waiting = %v, %v; want the messages waiting", waiting, err)
	}
	// No Close: the next process opens what was left.
	again := openStoreAt(t, path)
	if waiting, err := again.searchWaiting(ctx); err != nil || waiting {
		t.Fatalf("after reopening, waiting = %v, %v", waiting, err)
	}
	if n := searchCount(t, again, "albatross"); n != 2 {
		t.Fatalf("found %d of 2 messages", n)
	}
	if err := again.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

func TestPurgeWithMessagesWaitingForTheIndex(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	s.stopMaintenance() // keep everything waiting until the purge
	gone := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	kept := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	mustAppend(t, s, kept.ID, say("kept pelican"))
	mustAppend(t, s, gone.ID, say("gone pelican"), say("gone pelican again"))
	if err := s.Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v", n, err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatalf("after the purge: %v", err)
	}
	// The purged rows' ids come back for new messages: they are indexed too.
	mustAppend(t, s, kept.ID, say("new pelican"), say("newer pelican"))
	if n := searchCount(t, s, "pelican"); n != 3 {
		t.Fatalf("found %d pelicans, want 3 (kept, new, newer)", n)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// The write-ahead log is checkpointed in the background after writes, not
// by the commits themselves; what was written survives a crash before it.
func TestCheckpointAfterWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.db")
	s := openStoreAt(t, path)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	before := s.maint.checkpoints.Load()
	for i := range 50 {
		mustAppend(t, s, sess.ID, say(fmt.Sprint("message ", i)))
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.maint.checkpoints.Load() == before {
		if time.Now().After(deadline) {
			t.Fatal("no checkpoint ran within 10 s of the writes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var autocheckpoint int
	if err := s.w.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&autocheckpoint); err != nil || autocheckpoint != 0 {
		t.Fatalf("the write connection's wal_autocheckpoint is %d (%v), want 0: commits would checkpoint", autocheckpoint, err)
	}

	// Writes after the last checkpoint, then a crash (no Close): the next
	// open replays them from the log.
	s.stopMaintenance()
	mustAppend(t, s, sess.ID, say("after the checkpoint"))
	again := openStoreAt(t, path)
	got, err := again.Get(ctx, sess.ID)
	if err != nil || got.MessageCount != 51 {
		t.Fatalf("after the crash: %d messages (%v), want 51", got.MessageCount, err)
	}
}

// While writes go on, a checkpoint still lets the log start over instead of
// growing for as long as they last.
func TestCheckpointUnderSustainedWrites(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t)
	s.stopMaintenance()
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default"})
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		text := strings.Repeat("a long message to fill pages ", 200)
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := s.Append(ctx, sess.ID, say(fmt.Sprint(i, text))); err != nil {
				done <- err
				return
			}
		}
	}()
	defer func() {
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}()
	logFrames := func() int {
		var busy, frames, copied int
		if err := s.ckpt.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied); err != nil {
			t.Fatal(err)
		}
		return frames
	}
	deadline := time.Now().Add(30 * time.Second)
	for logFrames() < walRestartFrames {
		if time.Now().After(deadline) {
			t.Skip("the writes did not fill the log in 30 s on this machine")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		if n := logFrames(); n < walRestartFrames {
			return // the log started over
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log kept growing under the writes: %d pages", logFrames())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
