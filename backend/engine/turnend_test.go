package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"tinyelf/backend/llm"
)

// A client may send the next message the moment it sees turn.end: the
// session is still winding the turn up then, and the message waits for it
// instead of being refused as busy.
func TestNextMessageRightAfterTurnEnd(t *testing.T) {
	p := &instantProvider{answers: func(int) *llm.Response {
		return &llm.Response{Text: "Done.", StopReason: llm.StopEndTurn}
	}}
	ends := make(chan string, 64)
	e, id := newBenchEngineWith(t, p, func(o *Options) {
		o.Sink = func(ev Event) {
			if ev.Type == "turn.end" {
				ends <- ev.SessionID
			}
		}
	})
	if err := e.Send(id, "first"); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		select {
		case <-ends:
		case <-time.After(10 * time.Second):
			t.Fatalf("turn %d never ended", i)
		}
		if err := e.Send(id, "next"); err != nil {
			if errors.Is(err, ErrBusy) {
				t.Fatalf("turn %d: the message sent on turn.end was refused: %v", i+1, err)
			}
			t.Fatal(err)
		}
	}
	select {
	case <-ends:
	case <-time.After(10 * time.Second):
		t.Fatal("the last turn never ended")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Wait(ctx, id); err != nil {
		t.Fatal(err)
	}
}
