package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestScale(t *testing.T) {
	t.Parallel()
	// Left half opaque red, right half transparent: scaled to 2×2 each
	// half keeps its colour; scaled to 1×1 the red is half covered, and
	// still red (not darkened by the transparent black beside it).
	src := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 4; x++ {
			src.SetNRGBA(x, y, color.NRGBA{R: 200, G: 10, B: 20, A: 255})
		}
	}
	tests := []struct {
		n    int
		x, y int
		want color.NRGBA
	}{
		{n: 2, x: 0, y: 1, want: color.NRGBA{R: 200, G: 10, B: 20, A: 255}},
		{n: 2, x: 1, y: 0, want: color.NRGBA{}},
		{n: 1, x: 0, y: 0, want: color.NRGBA{R: 200, G: 10, B: 20, A: 128}},
		{n: 3, x: 1, y: 1, want: color.NRGBA{R: 200, G: 10, B: 20, A: 128}}, // a pixel across the edge
		{n: 8, x: 3, y: 7, want: color.NRGBA{R: 200, G: 10, B: 20, A: 255}},
	}
	for _, tt := range tests {
		got := Scale(src, tt.n)
		if b := got.Bounds(); b.Dx() != tt.n || b.Dy() != tt.n {
			t.Fatalf("Scale(%d) is %v", tt.n, b)
		}
		if c := got.NRGBAAt(tt.x, tt.y); c != tt.want {
			t.Errorf("Scale(%d) at (%d,%d) = %v, want %v", tt.n, tt.x, tt.y, c, tt.want)
		}
	}
}

func TestRunWritesTheThemeSizes(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	if err := run(filepath.Join("..", "..", "build", "appicon.png"), out, "tinyelf", "16,48,512"); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{16, 48, 512} {
		f, err := os.Open(filepath.Join(out, sizeDir(n), "apps", "tinyelf.png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != n || cfg.Height != n {
			t.Errorf("%d: %dx%d, %v", n, cfg.Width, cfg.Height, err)
		}
	}
	for _, bad := range []string{"0", "1024", "x"} {
		if err := run(filepath.Join("..", "..", "build", "appicon.png"), out, "tinyelf", bad); err == nil {
			t.Errorf("size %q accepted", bad)
		}
	}
}

func sizeDir(n int) string { return fmt.Sprintf("%dx%d", n, n) }
