package usertools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/internal/testutil"
)

func TestRunCLI(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "weather.py"), `
import sys, os
CREDENTIALS = ["WEATHER_KEY"]
def get_tool_schemas():
    return [{"name": "weather_now", "description": "x"}]
def dispatch(name, args):
    return "sunny"
def cli_main(argv):
    print("args:", " ".join(argv))
    print("key=" + os.environ["WEATHER_KEY"])
    print("to stderr", file=sys.stderr)
    return 3
`, 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "nocli.py"), pyTool("nocli", "run", `return 1`, ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "sh.sh"), "#!/bin/sh\necho \"cli: $*\"\n", 0o755)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "sh.tool.json"), `{"command": ["./sh.sh"], "cli": ["./sh.sh", "--cli"], "schemas": [{"name": "sh_run", "description": "x"}]}`, 0)
	s := newTestService(t, data, withEnv(testEnv{"WEATHER_KEY": "wk-123456"}))
	var out, errOut bytes.Buffer
	code, err := s.RunCLI(context.Background(), "default", "weather", []string{"now", "--city", "Tokyo"}, strings.NewReader(""), &out, &errOut)
	if err != nil || code != 3 {
		t.Fatalf("weather: %d %v (%s)", code, err, errOut.String())
	}
	if out.String() != "args: now --city Tokyo\nkey=[redacted WEATHER_KEY]\n" || errOut.String() != "to stderr\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), errOut.String())
	}
	out.Reset()
	if code, err := s.RunCLI(context.Background(), "default", "sh", []string{"a", "b"}, nil, &out, &errOut); err != nil || code != 0 || out.String() != "cli: --cli a b\n" {
		t.Fatalf("sh: %d %v %q", code, err, out.String())
	}
	if _, err := s.RunCLI(context.Background(), "default", "nocli", nil, nil, &out, &errOut); !errors.Is(err, ErrNoCLI) {
		t.Fatalf("nocli: %v", err)
	}
	if _, err := s.RunCLI(context.Background(), "default", "missing", nil, nil, &out, &errOut); err == nil {
		t.Fatal("missing tool ran")
	}
	// Call: what `tinyelf tool NAME ACTION --args` and Settings use.
	if res := s.Call(context.Background(), "default", "weather", "now", nil, false); res.IsError || res.Content != "sunny" || res.Name != "weather_now" {
		t.Fatalf("Call: %+v", res)
	}
}

func TestList(t *testing.T) {
	data := t.TempDir()
	testutil.WriteFile(t, filepath.Join(commonDir(data), "mail.py"), `
CREDENTIALS = ["MAIL_TOKEN"]
EXECUTION_PROFILE = {"send": {"gated": True, "expected_seconds": 15}, "sync": {"background_eligible": True, "expected_seconds": 1800}}
def get_tool_schemas():
    return [{"name": "mail_send", "description": "Sends."}, {"name": "mail_sync", "description": "Syncs."}]
def dispatch(name, args):
    return None
`, 0)
	testutil.WriteFile(t, filepath.Join(commonDir(data), "mail2.py"), pyTool("mail2", "x", "return 1", ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "mail2.py"), pyTool("mail2", "x", "return 2", ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "bash.py"), pyTool("bash", "x", "return 1", ""), 0)
	testutil.WriteFile(t, filepath.Join(personalDir(data, "default"), "broken.py"), "def (\n", 0)
	s := newTestService(t, data, withEnv(testEnv{"MAIL_TOKEN": "t0k3n-value"}))
	if err := s.SavePermissions("default", Permissions{ExternalTools: []string{"mail_send"}}); err != nil {
		t.Fatal(err)
	}
	l := s.List(context.Background(), "default")
	if len(l.Tools) != 3 || l.PersonalDir != personalDir(data, "default") || l.CommonDir != commonDir(data) {
		t.Fatalf("listing %+v", l)
	}
	byName := map[string]ToolView{}
	for _, v := range l.Tools {
		byName[v.Name] = v
	}
	mail := byName["mail"]
	if mail.Origin != OriginCommon || mail.Kind != KindPython || len(mail.Actions) != 2 ||
		!mail.Actions[0].Gated || !mail.Actions[0].Allowed || mail.Actions[0].ExpectedSeconds != 15 || !mail.Actions[1].Background {
		t.Errorf("mail %+v", mail)
	}
	if len(mail.Credentials) != 1 || mail.Credentials[0].From != FromEnvironment {
		t.Errorf("credentials %+v", mail.Credentials)
	}
	if v := byName["mail2"]; v.Origin != OriginPersonal || !v.Overrides {
		t.Errorf("mail2 %+v", v)
	}
	if v := byName["broken"]; len(v.Errors) != 1 || !strings.Contains(v.Errors[0], "syntax error") {
		t.Errorf("broken %+v", v)
	}
	if len(l.Skipped) != 1 || l.Skipped[0].Tool != "bash" {
		t.Errorf("skipped %+v", l.Skipped)
	}
	if b, _ := json.Marshal(l); strings.Contains(string(b), "t0k3n") {
		t.Errorf("the listing carries a credential value: %s", b)
	}
}
