package smoke

import (
	"image"
	"image/color"
	"strings"
	"testing"
)

func TestOver(t *testing.T) {
	t.Parallel()
	page := color.RGBA{R: 0xf6, G: 0xf7, B: 0xf9, A: 255}
	backdrop := color.RGBA{R: 20, G: 24, B: 28, A: 255}
	tests := []struct {
		alpha float64
		want  color.RGBA
	}{
		{0, page},
		{1, backdrop},
		// What WebKit showed for rgb(20 24 28 / 0.38) over #f6f7f9.
		{0.38, color.RGBA{R: 0xa0, G: 0xa2, B: 0xa5, A: 255}},
	}
	for _, tt := range tests {
		if got := Over(page, backdrop, tt.alpha); got != tt.want {
			t.Errorf("Over(alpha %v) = %s, want %s", tt.alpha, Hex(got), Hex(tt.want))
		}
	}
}

func TestBox(t *testing.T) {
	t.Parallel()
	red := color.RGBA{R: 255, A: 255}
	img := image.NewRGBA(image.Rect(0, 0, 50, 40))
	if box, n := Box(img, img.Bounds(), red); n != 0 || !box.Empty() {
		t.Errorf("Box of a missing colour = %v, %d; want empty, 0", box, n)
	}
	fill(img, image.Rect(10, 5, 20, 8), red)
	img.SetRGBA(30, 20, red)
	if box, n := Box(img, img.Bounds(), red); n != 31 || box != image.Rect(10, 5, 31, 21) {
		t.Errorf("Box = %v, %d; want (10,5)-(31,21), 31", box, n)
	}
	if box, n := Box(img, image.Rect(0, 0, 25, 40), red); n != 30 || box != image.Rect(10, 5, 20, 8) {
		t.Errorf("Box clipped = %v, %d; want (10,5)-(20,8), 30", box, n)
	}
}

func TestDialogFind(t *testing.T) {
	t.Parallel()
	d := Dialog{
		Page:     color.RGBA{R: 0xf6, G: 0xf7, B: 0xf9, A: 255},
		Backdrop: color.RGBA{R: 20, G: 24, B: 28, A: 255},
		Alpha:    0.38,
		Panel:    color.RGBA{R: 255, G: 255, B: 255, A: 255},
		Button:   color.RGBA{R: 0xb4, G: 0x23, B: 0x18, A: 255},
		MinPanel: 0.03, MinButton: 100,
	}
	win := image.Rect(40, 0, 440, 300) // on a wider screen
	dimmed := Over(d.Page, d.Backdrop, d.Alpha)
	screen := func(page color.RGBA, panel image.Rectangle, button bool) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 480, 300))
		fill(img, win, page)
		fill(img, panel, d.Panel)
		if button {
			fill(img, image.Rect(panel.Max.X-40, panel.Max.Y-20, panel.Max.X-10, panel.Max.Y-10), d.Button)
		}
		return img
	}
	middle := image.Rect(180, 110, 300, 190)
	tests := []struct {
		name string
		img  *image.RGBA
		want string // "" for found
	}{
		{"a dialog", screen(dimmed, middle, true), ""},
		{"the page not dimmed", screen(d.Page, middle, true), "not dimmed"},
		{"no panel", screen(dimmed, image.Rectangle{}, false), "no dialog panel"},
		{"the panel in a corner", screen(dimmed, image.Rect(40, 0, 160, 80), true), "not a dialog in the middle"},
		{"no button", screen(dimmed, middle, false), "button"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := d.Find(tt.img, win)
			if tt.want == "" {
				if err != nil || got != middle {
					t.Errorf("Find = %v, %v; want %v", got, err, middle)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Find = %v; want an error saying %q", err, tt.want)
			}
		})
	}
}
