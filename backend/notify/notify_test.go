package notify

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestNotificationCleaned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   Notification
		want Notification
	}{
		{"kept as is", Notification{Title: "Done", Body: "ok", Kind: KindError}, Notification{Title: "Done", Body: "ok", Kind: KindError}},
		{"empty title and kind", Notification{}, Notification{Title: "TinyElf", Kind: KindDone}},
		{"blank title", Notification{Title: " \n\t"}, Notification{Title: "TinyElf", Kind: KindDone}},
		{"title on one line", Notification{Title: "  Fix\nthe   tests \r\n"}, Notification{Title: "Fix the tests", Kind: KindDone}},
		{"body trimmed, lines kept", Notification{Title: "t", Body: "\n line 1\nline 2 \n"}, Notification{Title: "t", Body: "line 1\nline 2", Kind: KindDone}},
		{"invalid UTF-8 replaced, NUL dropped", Notification{Title: "a\xffb", Body: "c\x00d\xfe"}, Notification{Title: "a\uFFFDb", Body: "cd\uFFFD", Kind: KindDone}},
		{"clipped by runes", Notification{Title: strings.Repeat("é", 200), Body: strings.Repeat("日", 1000)},
			Notification{Title: strings.Repeat("é", maxTitleRunes-1) + "…", Body: strings.Repeat("日", maxBodyRunes-1) + "…", Kind: KindDone}},
		{"exactly at the limit", Notification{Title: strings.Repeat("a", maxTitleRunes)}, Notification{Title: strings.Repeat("a", maxTitleRunes), Kind: KindDone}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.in.cleaned()
			if got != tt.want {
				t.Errorf("cleaned() = %#v, want %#v", got, tt.want)
			}
			if !utf8.ValidString(got.Title) || !utf8.ValidString(got.Body) {
				t.Errorf("cleaned() left invalid UTF-8: %#v", got)
			}
		})
	}
}

func TestKindUrgency(t *testing.T) {
	t.Parallel()
	for kind, want := range map[Kind]byte{KindDone: 1, KindError: 1, KindApproval: 2, "": 1, "other": 1} {
		if got := kind.urgency(); got != want {
			t.Errorf("Kind(%q).urgency() = %d, want %d", kind, got, want)
		}
	}
}

func TestDisabledDropsEverything(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (Disabled{}).Notify(ctx, Notification{Title: "t"}); err != nil {
		t.Errorf("Disabled.Notify = %v, want nil", err)
	}
}

func TestFakeRecords(t *testing.T) {
	t.Parallel()
	f := &Fake{}
	ctx := context.Background()
	first := Notification{Title: "one", Kind: KindDone}
	if err := f.Notify(ctx, first); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	boom := errors.New("boom")
	f.SetErr(boom)
	if err := f.Notify(ctx, Notification{Title: "two"}); !errors.Is(err, boom) {
		t.Errorf("Notify after SetErr = %v, want boom", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := f.Notify(cancelled, Notification{Title: "three"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Notify with a cancelled context = %v, want context.Canceled", err)
	}

	sent := f.Sent()
	if len(sent) != 2 || sent[0] != first || sent[1].Title != "two" {
		t.Fatalf("Sent() = %+v, want one and two", sent)
	}
	sent[0].Title = "changed"
	if f.Sent()[0].Title != "one" {
		t.Error("Sent() shares its slice with the fake")
	}
	f.Reset()
	if len(f.Sent()) != 0 {
		t.Errorf("Sent() after Reset = %+v, want none", f.Sent())
	}
}

func TestFakeConcurrentUse(t *testing.T) {
	t.Parallel()
	f := &Fake{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				f.Notify(context.Background(), Notification{Title: "t"})
				f.Sent()
			}
		})
	}
	wg.Wait()
	if n := len(f.Sent()); n != 800 {
		t.Errorf("recorded %d, want 800", n)
	}
}

func TestBeeepHonoursCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&Beeep{}).Notify(ctx, Notification{Title: "t"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Beeep.Notify with a cancelled context = %v, want context.Canceled", err)
	}
}
