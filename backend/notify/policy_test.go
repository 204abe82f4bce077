package notify

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

// The Notify tool's interface (agent.Notifier), restated so that this
// package need not import tools.
var _ interface {
	Notify(ctx context.Context, title, body string) error
} = (*Policy)(nil)

func TestPolicyDecides(t *testing.T) {
	t.Parallel()
	type event func(p *Policy, ctx context.Context, background bool) error
	turnEnded := func(p *Policy, ctx context.Context, bg bool) error {
		return p.TurnEnded(ctx, "Fix the tests", "All 42 tests pass.", bg)
	}
	turnFailed := func(p *Policy, ctx context.Context, bg bool) error {
		return p.TurnFailed(ctx, "Fix the tests", "provider: rate limited", bg)
	}
	approval := func(p *Policy, ctx context.Context, bg bool) error {
		return p.ApprovalWaiting(ctx, "Fix the tests", "Bash", bg)
	}
	done := Notification{Title: "Fix the tests", Body: "All 42 tests pass.", Kind: KindDone}
	failed := Notification{Title: "Fix the tests", Body: "Stopped with an error: provider: rate limited", Kind: KindError}
	waiting := Notification{Title: "Fix the tests", Body: "Waiting for your approval to run Bash.", Kind: KindApproval}

	tests := []struct {
		name       string
		enabled    bool
		focused    bool
		background bool
		event      event
		want       []Notification
	}{
		{"turn ends while the user looks", true, true, false, turnEnded, nil},
		{"turn ends while the user is away", true, false, false, turnEnded, []Notification{done}},
		{"background turn ends while the user looks", true, true, true, turnEnded, []Notification{done}},
		{"background turn ends while the user is away", true, false, true, turnEnded, []Notification{done}},
		{"turn ends with notifications off", false, false, true, turnEnded, nil},
		{"turn fails while the user looks", true, true, false, turnFailed, nil},
		{"turn fails while the user is away", true, false, false, turnFailed, []Notification{failed}},
		{"background turn fails", true, true, true, turnFailed, []Notification{failed}},
		{"approval while the user looks", true, true, false, approval, nil},
		{"approval while the user is away", true, false, false, approval, []Notification{waiting}},
		{"background approval while the user looks", true, true, true, approval, []Notification{waiting}},
		{"approval with notifications off", false, false, true, approval, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &Fake{}
			p := NewPolicy(fake, tt.enabled)
			p.SetFocused(tt.focused)
			if err := tt.event(p, context.Background(), tt.background); err != nil {
				t.Fatalf("event: %v", err)
			}
			if got := fake.Sent(); !slices.Equal(got, tt.want) {
				t.Errorf("sent %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestPolicyWording(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	p := NewPolicy(fake, true)
	ctx := context.Background()
	p.TurnEnded(ctx, "", "  ", false)
	p.TurnFailed(ctx, "Sess", "", false)
	p.ApprovalWaiting(ctx, "Sess", "", false)
	want := []Notification{
		{Title: "", Body: "Finished.", Kind: KindDone}, // the notifier shows AppName for an empty title
		{Title: "Sess", Body: "Stopped with an error.", Kind: KindError},
		{Title: "Sess", Body: "Waiting for your approval.", Kind: KindApproval},
	}
	if got := fake.Sent(); !slices.Equal(got, want) {
		t.Errorf("sent %+v, want %+v", got, want)
	}
}

func TestPolicyStartsUnfocused(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	p := NewPolicy(fake, true)
	if p.Focused() {
		t.Fatal("a new policy reports the window focused")
	}
	p.TurnEnded(context.Background(), "t", "s", false)
	if len(fake.Sent()) != 1 {
		t.Errorf("sent %d notifications before any focus report, want 1", len(fake.Sent()))
	}
}

func TestPolicyFollowsToggles(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	p := NewPolicy(fake, false)
	ctx := context.Background()

	p.TurnEnded(ctx, "1", "off", false)
	p.SetEnabled(true)
	p.SetFocused(true)
	p.TurnEnded(ctx, "2", "focused", false)
	p.SetFocused(false)
	p.TurnEnded(ctx, "3", "away", false)
	p.SetEnabled(false)
	p.TurnEnded(ctx, "4", "off again", true)

	got := fake.Sent()
	if len(got) != 1 || got[0].Title != "3" {
		t.Errorf("sent %+v, want only the turn that ended while away", got)
	}
	if p.Enabled() || p.Focused() {
		t.Errorf("Enabled() = %v, Focused() = %v; want false, false", p.Enabled(), p.Focused())
	}
}

func TestPolicyToolNotify(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	p := NewPolicy(fake, true)
	p.SetFocused(true)
	ctx := context.Background()
	if err := p.Notify(ctx, "Build finished", "3 warnings"); err != nil {
		t.Fatalf("Notify: %v", err)
	}
	p.SetEnabled(false)
	if err := p.Notify(ctx, "muted", ""); err != nil {
		t.Fatalf("Notify while disabled: %v", err)
	}
	want := []Notification{{Title: "Build finished", Body: "3 warnings", Kind: KindDone}}
	if got := fake.Sent(); !slices.Equal(got, want) {
		t.Errorf("sent %+v, want %+v (the model's call shows even while focused, never while off)", got, want)
	}
}

func TestPolicyReturnsNotifierError(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	fake.SetErr(ErrUnavailable)
	p := NewPolicy(fake, true)
	if err := p.TurnEnded(context.Background(), "t", "s", true); !errors.Is(err, ErrUnavailable) {
		t.Errorf("TurnEnded error = %v, want ErrUnavailable", err)
	}
}

func TestPolicyNilAndNilNotifier(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var nilPolicy *Policy
	nilPolicy.SetEnabled(true)
	nilPolicy.SetFocused(true)
	if err := nilPolicy.TurnEnded(ctx, "t", "s", true); err != nil {
		t.Errorf("nil policy TurnEnded: %v", err)
	}
	if err := nilPolicy.Notify(ctx, "t", "b"); err != nil {
		t.Errorf("nil policy Notify: %v", err)
	}
	if err := NewPolicy(nil, true).ApprovalWaiting(ctx, "t", "Bash", true); err != nil {
		t.Errorf("policy without notifier: %v", err)
	}
}

// The UI flips focus while turns end on engine goroutines; run with -race.
func TestPolicyConcurrentUse(t *testing.T) {
	t.Parallel()
	fake := &Fake{}
	p := NewPolicy(fake, true)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				p.SetFocused((i+j)%2 == 0)
				p.SetEnabled(true)
				p.TurnEnded(ctx, "t", "s", true)
				p.ApprovalWaiting(ctx, "t", "Bash", false)
			}
		})
	}
	wg.Wait()
	// Background turn ends always notify; approvals depend on the focus race.
	if n := len(fake.Sent()); n < 8*50 || n > 8*50*2 {
		t.Errorf("sent %d notifications, want between %d and %d", n, 8*50, 8*50*2)
	}
}

func TestPolicyRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type sent struct {
		name    string
		rules   func(r *Rules)
		focused bool
		event   func(p *Policy) error
		want    int  // notifications sent
		silent  bool // the one sent asks for no sound
	}
	turn := func(p *Policy) error { return p.TurnEnded(ctx, "t", "s", false) }
	background := func(p *Policy) error { return p.TurnEnded(ctx, "t", "s", true) }
	approval := func(p *Policy) error { return p.ApprovalWaiting(ctx, "t", "Bash", false) }
	mcpFailed := func(p *Policy) error { return p.MCPServerFailed(ctx, "files", "exited with status 1") }
	task := func(p *Policy) error { return p.TaskEnded(ctx, "backup finished", "3 files", false) }
	for _, tt := range []sent{
		{"turn finished off", func(r *Rules) { r.TurnFinished = false }, false, turn, 0, false},
		{"turn finished on, away", nil, false, turn, 1, false},
		{"background off", func(r *Rules) { r.BackgroundDone = false }, true, background, 0, false},
		{"background off leaves turns alone", func(r *Rules) { r.BackgroundDone = false }, false, turn, 1, false},
		{"approval off", func(r *Rules) { r.ApprovalWaiting = false }, false, approval, 0, false},
		{"mcp failed, away", nil, false, mcpFailed, 1, false},
		{"mcp failed, looking", nil, true, mcpFailed, 0, false},
		{"mcp failed off", func(r *Rules) { r.MCPFailed = false }, false, mcpFailed, 0, false},
		{"background task, looking", nil, true, task, 1, false},
		{"background task off", func(r *Rules) { r.BackgroundDone = false }, false, task, 0, false},
		{"even when focused", func(r *Rules) { r.OnlyUnfocused = false }, true, turn, 1, false},
		{"focused holds it back by default", nil, true, turn, 0, false},
		{"no sound", func(r *Rules) { r.Sound = false }, false, turn, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &Fake{}
			p := NewPolicy(fake, true)
			r := DefaultRules
			if tt.rules != nil {
				tt.rules(&r)
			}
			p.SetRules(r)
			p.SetFocused(tt.focused)
			if err := tt.event(p); err != nil {
				t.Fatal(err)
			}
			got := fake.Sent()
			if len(got) != tt.want {
				t.Fatalf("sent %v, want %d", got, tt.want)
			}
			if tt.want > 0 && got[0].Silent != tt.silent {
				t.Errorf("Silent = %v, want %v", got[0].Silent, tt.silent)
			}
		})
	}
	t.Run("test ignores focus and rules", func(t *testing.T) {
		t.Parallel()
		fake := &Fake{}
		p := NewPolicy(fake, true)
		p.SetRules(Rules{})
		p.SetFocused(true)
		if err := p.Test(ctx, "TinyElf", "test"); err != nil || len(fake.Sent()) != 1 {
			t.Errorf("Test sent %v, %v", fake.Sent(), err)
		}
	})
}
