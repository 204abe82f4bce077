package version

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	saved := version
	t.Cleanup(func() { version = saved })
	tests := []struct {
		name, set, want string
		dev             bool
		line            string
	}{
		{name: "not set", set: "", want: Development, dev: true, line: "a development build"},
		{name: "blank", set: "  ", want: Development, dev: true, line: "a development build"},
		{name: "release", set: "0.2.0", want: "0.2.0", line: "tinyelf 0.2.0 ("},
		{name: "after a release", set: "0.2.0+5.g1a2b3c4", want: "0.2.0+5.g1a2b3c4", line: "tinyelf 0.2.0+5.g1a2b3c4 ("},
		{name: "untagged", set: "0.1.0~dev.303.g7ff6024\n", want: "0.1.0~dev.303.g7ff6024", line: "tinyelf 0.1.0~dev.303.g7ff6024 ("},
		// A quoting mistake in the build script must not become a version.
		{name: "two words", set: "0.2.0 -s", want: Development, dev: true, line: "a development build"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			version = tt.set
			if got := Version(); got != tt.want {
				t.Errorf("Version() = %q, want %q", got, tt.want)
			}
			if got := IsDevelopment(); got != tt.dev {
				t.Errorf("IsDevelopment() = %v, want %v", got, tt.dev)
			}
			if got := Line(); !strings.Contains(got, tt.line) {
				t.Errorf("Line() = %q, want it to contain %q", got, tt.line)
			}
		})
	}
}
