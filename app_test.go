package main

import (
	"context"
	"testing"
)

func TestHasDisplay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"none", map[string]string{}, false},
		{"empty values", map[string]string{"DISPLAY": "", "WAYLAND_DISPLAY": ""}, false},
		{"X11", map[string]string{"DISPLAY": ":0"}, true},
		{"Wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string { return tt.env[k] }
			if got := hasDisplay(getenv); got != tt.want {
				t.Errorf("hasDisplay(%v) = %v, want %v", tt.env, got, tt.want)
			}
		})
	}
}

func TestAppVersionAndStartup(t *testing.T) {
	t.Parallel()
	app := NewApp(nil)
	if app.runtimeContext() != nil {
		t.Fatal("runtime context set before startup")
	}
	ctx := context.Background()
	app.startup(ctx)
	if app.runtimeContext() != ctx {
		t.Fatal("startup did not keep the runtime context")
	}
	if app.Version() == "" {
		t.Fatal("Version() is empty")
	}
}
