package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"tinyelf/backend/api"
)

// TestApproverExplainsHeldCommands: without --yes a command the shell guard
// holds is denied with the guard's reason on stderr; --yes allows it.
func TestApproverExplainsHeldCommands(t *testing.T) {
	t.Parallel()
	hold := "The folders `rm -rf` gets come from `xargs` and cannot be checked before it runs."
	req := api.ApprovalRequest{Tool: "Bash", Arguments: `{"command":"ls | xargs rm -rf"}`, Hold: hold}
	var stderr bytes.Buffer
	ans, err := cliApprover(false, &stderr).Ask(context.Background(), req)
	if err != nil || ans.Decision != api.Deny {
		t.Fatalf("answer %+v, %v", ans, err)
	}
	if !strings.Contains(stderr.String(), hold) || !strings.Contains(stderr.String(), "--yes") {
		t.Errorf("stderr %q", stderr.String())
	}
	ans, err = cliApprover(true, &stderr).Ask(context.Background(), req)
	if err != nil || ans.Decision != api.AllowOnce {
		t.Fatalf("with --yes: %+v, %v", ans, err)
	}
}
