package smoke

import (
	"fmt"
	"image"
	"image/color"
	"strings"
)

// Stats describes the colours in one region of a screenshot.
type Stats struct {
	Pixels         int
	DistinctColors int
	Dominant       color.RGBA // the most common colour
	DominantShare  float64    // its share of the region, 0..1
	BlackShare     float64    // share of pure black pixels (an empty Xvfb screen)
	counts         map[color.RGBA]int
}

// Analyze counts the colours of img inside rect (clipped to the image).
func Analyze(img *image.RGBA, rect image.Rectangle) Stats {
	rect = rect.Intersect(img.Bounds())
	s := Stats{counts: make(map[color.RGBA]int)}
	black := color.RGBA{A: 255}
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			s.counts[img.RGBAAt(x, y)]++
		}
	}
	s.Pixels = rect.Dx() * rect.Dy()
	s.DistinctColors = len(s.counts)
	for c, n := range s.counts {
		if n > s.counts[s.Dominant] || (n == s.counts[s.Dominant] && less(c, s.Dominant)) {
			s.Dominant = c
		}
	}
	if s.Pixels > 0 {
		s.DominantShare = float64(s.counts[s.Dominant]) / float64(s.Pixels)
		s.BlackShare = float64(s.counts[black]) / float64(s.Pixels)
	}
	return s
}

// less orders colours so that ties between dominant colours break the same
// way on every run.
func less(a, b color.RGBA) bool {
	if a.R != b.R {
		return a.R < b.R
	}
	if a.G != b.G {
		return a.G < b.G
	}
	return a.B < b.B
}

// Count returns how many pixels of the region are exactly c.
func (s Stats) Count(c color.RGBA) int {
	return s.counts[c]
}

// String summarizes the stats for a log line.
func (s Stats) String() string {
	return fmt.Sprintf("%d pixels, %d distinct colours, dominant %s (%.1f%%), black %.1f%%",
		s.Pixels, s.DistinctColors, Hex(s.Dominant), 100*s.DominantShare, 100*s.BlackShare)
}

// Rendered holds what a region must show to count as a rendered window rather
// than a blank one.
type Rendered struct {
	MinDistinctColors int          // text and icons bring many shades; a blank window has one or two
	MaxBlackShare     float64      // the empty Xvfb screen is black
	AnyOf             []color.RGBA // at least one of these colours (the app's accent, say) must appear...
	MinCount          int          // ...on at least this many pixels
}

// Check returns nil when s meets every requirement, and otherwise an error
// that says which one failed.
func (r Rendered) Check(s Stats) error {
	var problems []string
	if s.Pixels == 0 {
		return fmt.Errorf("empty region")
	}
	if s.DistinctColors < r.MinDistinctColors {
		problems = append(problems, fmt.Sprintf("only %d distinct colours (want at least %d)", s.DistinctColors, r.MinDistinctColors))
	}
	if s.BlackShare > r.MaxBlackShare {
		problems = append(problems, fmt.Sprintf("%.1f%% black (want at most %.1f%%)", 100*s.BlackShare, 100*r.MaxBlackShare))
	}
	if len(r.AnyOf) > 0 {
		best := 0
		for _, c := range r.AnyOf {
			best = max(best, s.Count(c))
		}
		if best < r.MinCount {
			names := make([]string, len(r.AnyOf))
			for i, c := range r.AnyOf {
				names[i] = Hex(c)
			}
			problems = append(problems, fmt.Sprintf("%d pixels of %s (want at least %d)", best, strings.Join(names, " or "), r.MinCount))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("window looks blank: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Hex formats c as #rrggbb.
func Hex(c color.RGBA) string {
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// ParseHex parses #rrggbb or rrggbb.
func ParseHex(s string) (color.RGBA, error) {
	var c color.RGBA
	s = strings.TrimPrefix(s, "#")
	if len(s) != 6 {
		return c, fmt.Errorf("colour %q: want rrggbb", s)
	}
	if _, err := fmt.Sscanf(s, "%02x%02x%02x", &c.R, &c.G, &c.B); err != nil {
		return c, fmt.Errorf("colour %q: %w", s, err)
	}
	c.A = 255
	return c, nil
}
