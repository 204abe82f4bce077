package notify_test

import (
	"context"
	"fmt"

	"tinyelf/backend/notify"
)

func ExamplePolicy() {
	fake := &notify.Fake{} // the engine passes notify.New() instead
	policy := notify.NewPolicy(fake, true)
	ctx := context.Background()

	policy.SetFocused(true) // the UI reports that the window has focus
	policy.TurnEnded(ctx, "Fix the tests", "All tests pass.", false)
	policy.TurnEnded(ctx, "Subagent: lint", "No findings.", true)

	policy.SetFocused(false)
	policy.ApprovalWaiting(ctx, "Fix the tests", "Bash", false)

	for _, n := range fake.Sent() {
		fmt.Printf("%s: %s (%s)\n", n.Title, n.Body, n.Kind)
	}
	// Output:
	// Subagent: lint: No findings. (done)
	// Fix the tests: Waiting for your approval to run Bash. (approval)
}
