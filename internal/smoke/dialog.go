package smoke

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Over is the colour top shows when drawn with opacity alpha (0 to 1) over
// bottom, as a page composites a translucent backdrop.
func Over(bottom, top color.RGBA, alpha float64) color.RGBA {
	mix := func(b, t uint8) uint8 {
		return uint8(math.Round(float64(b)*(1-alpha) + float64(t)*alpha))
	}
	return color.RGBA{R: mix(bottom.R, top.R), G: mix(bottom.G, top.G), B: mix(bottom.B, top.B), A: 255}
}

// Box returns the smallest rectangle within r holding every pixel of img
// that is exactly c, and how many such pixels there are (an empty
// rectangle and 0 when there are none).
func Box(img *image.RGBA, r image.Rectangle, c color.RGBA) (image.Rectangle, int) {
	r = r.Intersect(img.Bounds())
	box, n := image.Rectangle{}, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) != c {
				continue
			}
			if n == 0 {
				box = image.Rect(x, y, x+1, y+1)
			} else {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
			n++
		}
	}
	return box, n
}

// Dialog is what a modal dialog looks like on a screenshot of a page: the
// page dimmed by a translucent backdrop, a panel in the middle that is the
// only area left in the panel colour, and on it a button of a colour the
// dimmed page cannot show (the dialog's danger button, say).
type Dialog struct {
	Page     color.RGBA // the page's main background
	Backdrop color.RGBA // the backdrop's colour...
	Alpha    float64    // ...and opacity
	Panel    color.RGBA // the dialog's background
	Button   color.RGBA // the button's colour...
	MinPanel float64    // the panel's least share of the window, 0 to 1
	// MinButton is the least number of pixels of Button on the panel.
	MinButton int
}

// Find returns where the dialog's panel is in the window win of img, or
// an error saying what of the dialog is not there.
func (d Dialog) Find(img *image.RGBA, win image.Rectangle) (image.Rectangle, error) {
	win = win.Intersect(img.Bounds())
	if win.Empty() {
		return image.Rectangle{}, fmt.Errorf("the window is off the screen")
	}
	dimmed := Over(d.Page, d.Backdrop, d.Alpha)
	if s := Analyze(img, win); !closeTo(s.Dominant, dimmed, 2) {
		return image.Rectangle{}, fmt.Errorf("the page is not dimmed: its main colour is %s (%.0f%%), want %s (the backdrop over %s)",
			Hex(s.Dominant), 100*s.DominantShare, Hex(dimmed), Hex(d.Page))
	}
	panel, n := Box(img, win, d.Panel)
	if share := float64(n) / float64(win.Dx()*win.Dy()); share < d.MinPanel {
		return panel, fmt.Errorf("no dialog panel: %s covers %.1f%% of the window (want at least %.0f%%)", Hex(d.Panel), 100*share, 100*d.MinPanel)
	}
	// In the middle: its centre within a tenth of the window's from the
	// window's centre, and smaller than the window.
	pc, wc := center(panel), center(win)
	if abs(pc.X-wc.X) > win.Dx()/10 || abs(pc.Y-wc.Y) > win.Dy()/10 || panel.Dx() > win.Dx()*9/10 || panel.Dy() > win.Dy()*9/10 {
		return panel, fmt.Errorf("the %s area %v is not a dialog in the middle of the window %v", Hex(d.Panel), panel, win)
	}
	if _, b := Box(img, panel, d.Button); b < d.MinButton {
		return panel, fmt.Errorf("the dialog at %v has %d pixels of its %s button (want at least %d)", panel, b, Hex(d.Button), d.MinButton)
	}
	return panel, nil
}

func center(r image.Rectangle) image.Point {
	return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// closeTo reports whether two colours differ by at most tol in every
// channel.
func closeTo(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return abs(int(x)-int(y)) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}
