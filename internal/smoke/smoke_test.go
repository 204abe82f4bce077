package smoke

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"strings"
	"testing"
)

// encodeXWD writes img as a 24-bit TrueColor ZPixmap XWD, the way Xvfb -fbdir
// does: header most significant byte first, pixels in the given byte order.
func encodeXWD(t *testing.T, img *image.RGBA, headerOrder binary.ByteOrder, pixelLSB bool, name string) []byte {
	t.Helper()
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	nameBytes := append([]byte(name), 0)
	byteOrder := uint32(1)
	if pixelLSB {
		byteOrder = 0
	}
	hdr := xwdHeader{
		HeaderSize: uint32(xwdHeaderLen + len(nameBytes)), FileVersion: xwdFileVersion,
		PixmapFormat: zPixmap, PixmapDepth: 24, PixmapWidth: uint32(w), PixmapHeight: uint32(h),
		ByteOrder: byteOrder, BitmapUnit: 32, BitmapPad: 32, BitsPerPixel: 32,
		BytesPerLine: uint32(w*4 + 8), VisualClass: trueColor,
		RedMask: 0xff0000, GreenMask: 0x00ff00, BlueMask: 0x0000ff, BitsPerRGB: 8,
		ColormapEntries: 256, NColors: 2, WindowWidth: uint32(w), WindowHeight: uint32(h),
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, headerOrder, hdr); err != nil {
		t.Fatal(err)
	}
	buf.Write(nameBytes)
	buf.Write(make([]byte, 2*xwdColorLen)) // colour map entries, ignored for TrueColor
	for y := range h {
		row := make([]byte, hdr.BytesPerLine)
		for x := range w {
			c := img.RGBAAt(x, y)
			v := uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)
			if pixelLSB {
				binary.LittleEndian.PutUint32(row[x*4:], v)
			} else {
				binary.BigEndian.PutUint32(row[x*4:], v)
			}
		}
		buf.Write(row)
	}
	return buf.Bytes()
}

func testImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 7, 5))
	for y := range 5 {
		for x := range 7 {
			img.SetRGBA(x, y, color.RGBA{R: uint8(30 * x), G: uint8(50 * y), B: uint8(x + y), A: 255})
		}
	}
	return img
}

func TestDecodeXWD(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		headerOrder binary.ByteOrder
		pixelLSB    bool
	}{
		{"Xvfb on x86: header MSB first, pixels LSB first", binary.BigEndian, true},
		{"pixels MSB first", binary.BigEndian, false},
		{"header in little-endian host order", binary.LittleEndian, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			want := testImage()
			got, err := DecodeXWD(bytes.NewReader(encodeXWD(t, want, tt.headerOrder, tt.pixelLSB, "Xvfb screen")))
			if err != nil {
				t.Fatalf("DecodeXWD: %v", err)
			}
			if got.Bounds() != want.Bounds() {
				t.Fatalf("bounds = %v, want %v", got.Bounds(), want.Bounds())
			}
			for y := range 5 {
				for x := range 7 {
					if g, w := got.RGBAAt(x, y), want.RGBAAt(x, y); g != w {
						t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, w)
					}
				}
			}
		})
	}
}

func TestDecodeXWDRejectsOtherFiles(t *testing.T) {
	t.Parallel()
	tests := map[string][]byte{
		"empty":     nil,
		"png":       append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 200)...),
		"truncated": encodeXWD(t, testImage(), binary.BigEndian, true, "x")[:150],
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := DecodeXWD(bytes.NewReader(data)); err == nil {
				t.Fatal("DecodeXWD succeeded, want an error")
			}
		})
	}
}

var (
	black  = color.RGBA{A: 255}
	bg     = color.RGBA{R: 0xf6, G: 0xf7, B: 0xf9, A: 255}
	accent = color.RGBA{R: 0x1f, G: 0x8a, B: 0x66, A: 255}
)

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func TestRenderedCheck(t *testing.T) {
	t.Parallel()
	want := Rendered{MinDistinctColors: 16, MaxBlackShare: 0.1, AnyOf: []color.RGBA{accent}, MinCount: 50}
	screen := image.Rect(0, 0, 200, 100)

	blackScreen := image.NewRGBA(screen)
	fill(blackScreen, screen, black)

	// The window's background colour alone: what Wails shows before the page paints.
	emptyWindow := image.NewRGBA(screen)
	fill(emptyWindow, screen, bg)

	// The app shell: background, an accent button and antialiased text.
	shell := image.NewRGBA(screen)
	fill(shell, screen, bg)
	fill(shell, image.Rect(10, 10, 60, 30), accent)
	for i := range 40 {
		shell.SetRGBA(100+i, 50, color.RGBA{R: uint8(6 * i), G: uint8(6 * i), B: uint8(6 * i), A: 255})
	}

	tests := []struct {
		name    string
		img     *image.RGBA
		wantErr string
	}{
		{"empty Xvfb screen", blackScreen, "black"},
		{"window background only", emptyWindow, "distinct colours"},
		{"app shell", shell, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := Analyze(tt.img, tt.img.Bounds())
			err := want.Check(s)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Check(%s) = %v, want nil", s, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Check(%s) = %v, want an error mentioning %q", s, err, tt.wantErr)
			}
		})
	}
}

func TestAnalyzeDominantAndClip(t *testing.T) {
	t.Parallel()
	img := image.NewRGBA(image.Rect(0, 0, 10, 10))
	fill(img, img.Bounds(), black)
	fill(img, image.Rect(2, 2, 10, 10), bg)
	s := Analyze(img, image.Rect(2, 2, 50, 50)) // clipped to the image
	if s.Pixels != 64 || s.Dominant != bg || s.DominantShare != 1 || s.BlackShare != 0 {
		t.Fatalf("Analyze = %s, want 64 pixels all %s", s, Hex(bg))
	}
}

func TestParseHex(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]color.RGBA{"#1f8a66": accent, "f6f7f9": bg} {
		got, err := ParseHex(in)
		if err != nil || got != want {
			t.Errorf("ParseHex(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "#fff", "zzzzzz"} {
		if _, err := ParseHex(in); err == nil {
			t.Errorf("ParseHex(%q) succeeded, want an error", in)
		}
	}
}

func TestParseXwininfo(t *testing.T) {
	t.Parallel()
	const out = `
xwininfo: Window id: 0x200007 "TinyElf"

  Absolute upper-left X:  40
  Absolute upper-left Y:  0
  Relative upper-left X:  40
  Relative upper-left Y:  0
  Width: 1200
  Height: 800
  Depth: 24
  Visual: 0x21
  Visual Class: TrueColor
  Border width: 0
  Class: InputOutput
  Colormap: 0x20 (installed)
  Bit Gravity State: NorthWestGravity
  Window Gravity State: NorthWestGravity
  Backing Store State: NotUseful
  Save Under State: no
  Map State: IsViewable
  Override Redirect State: no
  Corners:  +40+0  -40+0  -40-0  +40-0
  -geometry 1200x800+40+0
`
	w, err := ParseXwininfo(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := image.Rect(40, 0, 1240, 800); w.Bounds != want || !w.Viewable {
		t.Fatalf("ParseXwininfo = %+v, want %v viewable", w, want)
	}
	unmapped, err := ParseXwininfo(strings.Replace(out, "IsViewable", "IsUnMapped", 1))
	if err != nil || unmapped.Viewable {
		t.Fatalf("unmapped window: %+v, %v; want not viewable", unmapped, err)
	}
	if _, err := ParseXwininfo("xwininfo: error: No window with name TinyElf exists!"); err == nil {
		t.Fatal("ParseXwininfo accepted an error message")
	}
}

func TestWindowProperties(t *testing.T) {
	t.Parallel()
	w, err := ParseXwininfo("xwininfo: Window id: 0x200007 \"TinyElf\"\n  Absolute upper-left X:  0\n  Absolute upper-left Y:  0\n  Width: 10\n  Height: 10\n  Map State: IsViewable\n")
	if err != nil || w.ID != "0x200007" {
		t.Errorf("ID = %q, %v", w.ID, err)
	}
	for _, out := range []string{"_NET_WM_ICON(CARDINAL) = 512, 512, 4278190080", "_NET_WM_ICON(CARDINAL) = \tIcon (512 x 512):\n"} {
		if wd, ht, ok := IconSize(out); !ok || wd != 512 || ht != 512 {
			t.Errorf("IconSize(%q) = %d, %d, %v", out, wd, ht, ok)
		}
	}
	if _, _, ok := IconSize("_NET_WM_ICON:  not found."); ok {
		t.Error("IconSize found an icon in a missing property")
	}
	hints := "WM_HINTS(WM_HINTS):\n\t\tClient accepts input or input focus: True\n\t\tbitmap id # to use for icon: 0x200012\n\t\tbitmap id # of mask for icon: 0x20001d\n"
	if id, ok := IconPixmap(hints); !ok || id != "0x200012" {
		t.Errorf("IconPixmap = %q, %v", id, ok)
	}
	if _, ok := IconPixmap("WM_HINTS(WM_HINTS):\n\t\tInitial state is Normal State.\n\t\twindow id # of group leader: 0x800001\n"); ok {
		t.Error("IconPixmap found an icon in hints without one")
	}
	out := "WM_NAME(STRING) = \"TinyElf\"\n_NET_WM_NAME(UTF8_STRING) = \"Fix the tests — TinyElf\"\n"
	if v, ok := PropertyText(out, "_NET_WM_NAME"); !ok || v != "Fix the tests — TinyElf" {
		t.Errorf("PropertyText = %q, %v", v, ok)
	}
	if _, ok := PropertyText(out, "WM_CLASS"); ok {
		t.Error("PropertyText found a missing property")
	}
}
