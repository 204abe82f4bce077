// Command icons writes the application icon in the sizes a desktop's icon
// theme asks for: one PNG per size, scaled down from build/appicon.png by
// averaging the source pixels each target pixel covers (with alpha
// premultiplied, so transparent edges do not darken). The Linux package
// installs them as /usr/share/icons/hicolor/NxN/apps/tinyelf.png.
//
// Usage: go run ./scripts/icons -src build/appicon.png -out DIR [-sizes 16,32,48,64,128,256,512]
//
// It writes DIR/NxN/apps/NAME.png for each size.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	src := flag.String("src", "build/appicon.png", "the square source icon (PNG)")
	out := flag.String("out", "", "the icon theme folder to write into (required)")
	name := flag.String("name", "tinyelf", "the icon's name")
	sizes := flag.String("sizes", "16,24,32,48,64,128,256,512", "the sizes to write, in pixels")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "icons: -out is required")
		os.Exit(2)
	}
	if err := run(*src, *out, *name, *sizes); err != nil {
		fmt.Fprintf(os.Stderr, "icons: %v\n", err)
		os.Exit(1)
	}
}

func run(src, out, name, sizeList string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("decode %s: %w", src, err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() {
		return fmt.Errorf("%s is %dx%d; an icon must be square", src, b.Dx(), b.Dy())
	}
	for _, s := range strings.Split(sizeList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 || n > b.Dx() {
			return fmt.Errorf("size %q: want a whole number from 1 to %d (the source's size)", s, b.Dx())
		}
		dir := filepath.Join(out, fmt.Sprintf("%dx%d", n, n), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := writePNG(filepath.Join(dir, name+".png"), Scale(img, n)); err != nil {
			return err
		}
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// Scale returns src scaled to n×n pixels (n no larger than src): each
// target pixel is the area-weighted mean of the source pixels under it.
func Scale(src image.Image, n int) *image.NRGBA {
	b := src.Bounds()
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy())) // premultiplied
	draw.Draw(rgba, rgba.Bounds(), src, b.Min, draw.Src)
	w, h := float64(b.Dx()), float64(b.Dy())
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	sx, sy := w/float64(n), h/float64(n)
	for y := 0; y < n; y++ {
		y0, y1 := float64(y)*sy, float64(y+1)*sy
		for x := 0; x < n; x++ {
			x0, x1 := float64(x)*sx, float64(x+1)*sx
			var r, g, bl, a, area float64
			for py := int(y0); float64(py) < y1; py++ {
				wy := min(y1, float64(py+1)) - max(y0, float64(py))
				for px := int(x0); float64(px) < x1; px++ {
					wx := min(x1, float64(px+1)) - max(x0, float64(px))
					c := rgba.RGBAAt(px, py)
					wt := wx * wy
					r += wt * float64(c.R)
					g += wt * float64(c.G)
					bl += wt * float64(c.B)
					a += wt * float64(c.A)
					area += wt
				}
			}
			if a == 0 {
				continue // fully transparent
			}
			// Back from premultiplied: colour = sum(colour·alpha)/sum(alpha).
			dst.SetNRGBA(x, y, color.NRGBA{
				R: clamp(255 * r / a), G: clamp(255 * g / a), B: clamp(255 * bl / a), A: clamp(a / area),
			})
		}
	}
	return dst
}

func clamp(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}
