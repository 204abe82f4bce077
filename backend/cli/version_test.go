package cli

import (
	"strings"
	"testing"

	"tinyelf/backend/version"
)

func TestVersionCommand(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		version string
		code    int
		stdout  string
		stderr  string
	}{
		{name: "--version", args: []string{"--version"}, version: "0.2.0", stdout: "tinyelf 0.2.0 ("},
		{name: "version", args: []string{"version"}, version: "0.1.0~dev.303.g7ff6024", stdout: "tinyelf 0.1.0~dev.303.g7ff6024 ("},
		{name: "-V", args: []string{"-V"}, version: "0.2.0+5.g1a2b3c4", stdout: "tinyelf 0.2.0+5.g1a2b3c4 ("},
		{name: "development build", args: []string{"--version"}, version: version.Development, stdout: "a development build"},
		{name: "no version given", args: []string{"--version"}, version: "", stdout: "a development build"},
		{name: "an argument", args: []string{"version", "x"}, version: "0.2.0", code: exitUsage, stderr: "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := Run(t.Context(), tt.args, &out, &errOut, Options{Version: tt.version})
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, errOut.String())
			}
			if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errOut.String(), tt.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", out.String(), errOut.String(), tt.stdout, tt.stderr)
			}
			if tt.code == exitOK && strings.Count(out.String(), "\n") != 1 {
				t.Errorf("want one line, got %q", out.String())
			}
		})
	}
}
