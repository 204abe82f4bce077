// Package smoke checks that the desktop binary really opens its window: it reads
// X screen dumps (the XWD files that Xvfb -fbdir keeps up to date, or xwd
// writes) and tells a rendered window from a blank one. The driver that starts
// Xvfb and the binary is scripts/smoke.
package smoke

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"math/bits"
)

// xwdHeader is the fixed part of an XWD file (X11/XWDFile.h): 25 CARD32s.
type xwdHeader struct {
	HeaderSize      uint32
	FileVersion     uint32
	PixmapFormat    uint32
	PixmapDepth     uint32
	PixmapWidth     uint32
	PixmapHeight    uint32
	XOffset         uint32
	ByteOrder       uint32
	BitmapUnit      uint32
	BitmapBitOrder  uint32
	BitmapPad       uint32
	BitsPerPixel    uint32
	BytesPerLine    uint32
	VisualClass     uint32
	RedMask         uint32
	GreenMask       uint32
	BlueMask        uint32
	BitsPerRGB      uint32
	ColormapEntries uint32
	NColors         uint32
	WindowWidth     uint32
	WindowHeight    uint32
	WindowX         uint32
	WindowY         uint32
	WindowBdrWidth  uint32
}

const (
	xwdHeaderLen   = 100
	xwdFileVersion = 7
	xwdColorLen    = 12 // pixel CARD32, r g b CARD16, flags, pad
	zPixmap        = 2
	trueColor      = 4
	directColor    = 5
	lsbFirst       = 0
)

// DecodeXWD reads an XWD screen dump of a TrueColor or DirectColor visual in
// ZPixmap format with 24 or 32 bits per pixel, which is what Xvfb and xwd
// produce for a 24-bit screen. Other formats return an error.
func DecodeXWD(r io.Reader) (*image.RGBA, error) {
	raw := make([]byte, xwdHeaderLen)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("read xwd header: %w", err)
	}
	// The header is written most significant byte first, but some writers use
	// the host's order; the version field tells which.
	var order binary.ByteOrder = binary.BigEndian
	if binary.BigEndian.Uint32(raw[4:8]) != xwdFileVersion {
		if binary.LittleEndian.Uint32(raw[4:8]) != xwdFileVersion {
			return nil, errors.New("not an XWD file (version 7 header not found)")
		}
		order = binary.LittleEndian
	}
	var h xwdHeader
	if err := binary.Read(bytes.NewReader(raw), order, &h); err != nil {
		return nil, fmt.Errorf("parse xwd header: %w", err)
	}
	if h.PixmapFormat != zPixmap {
		return nil, fmt.Errorf("xwd pixmap format %d not supported (want ZPixmap)", h.PixmapFormat)
	}
	if h.VisualClass != trueColor && h.VisualClass != directColor {
		return nil, fmt.Errorf("xwd visual class %d not supported (want TrueColor)", h.VisualClass)
	}
	if h.BitsPerPixel != 24 && h.BitsPerPixel != 32 {
		return nil, fmt.Errorf("xwd with %d bits per pixel not supported", h.BitsPerPixel)
	}
	w, ht := int(h.PixmapWidth), int(h.PixmapHeight)
	bpp := int(h.BitsPerPixel / 8)
	if w <= 0 || ht <= 0 || w > 1<<15 || ht > 1<<15 || int(h.BytesPerLine) < w*bpp {
		return nil, fmt.Errorf("xwd geometry %dx%d, %d bytes per line is not valid", w, ht, h.BytesPerLine)
	}
	if h.HeaderSize < xwdHeaderLen {
		return nil, fmt.Errorf("xwd header size %d is too small", h.HeaderSize)
	}
	// Skip the window name and the colour map: TrueColor pixels carry their colour.
	skip := int64(h.HeaderSize-xwdHeaderLen) + int64(h.NColors)*xwdColorLen
	if _, err := io.CopyN(io.Discard, r, skip); err != nil {
		return nil, fmt.Errorf("skip xwd colour map: %w", err)
	}

	img := image.NewRGBA(image.Rect(0, 0, w, ht))
	line := make([]byte, h.BytesPerLine)
	red, green, blue := channel(h.RedMask), channel(h.GreenMask), channel(h.BlueMask)
	for y := range ht {
		if _, err := io.ReadFull(r, line); err != nil {
			return nil, fmt.Errorf("read xwd row %d: %w", y, err)
		}
		for x := range w {
			p := line[x*bpp : x*bpp+bpp]
			var v uint32
			if h.ByteOrder == lsbFirst {
				for i := bpp - 1; i >= 0; i-- {
					v = v<<8 | uint32(p[i])
				}
			} else {
				for i := range bpp {
					v = v<<8 | uint32(p[i])
				}
			}
			img.SetRGBA(x, y, color.RGBA{R: red.value(v), G: green.value(v), B: blue.value(v), A: 255})
		}
	}
	return img, nil
}

// channelMask extracts one colour channel from a pixel value.
type channelMask struct {
	mask  uint32
	shift int
	max   uint32
}

func channel(mask uint32) channelMask {
	if mask == 0 {
		return channelMask{}
	}
	shift := bits.TrailingZeros32(mask)
	return channelMask{mask: mask, shift: shift, max: mask >> shift}
}

// value scales the channel to 8 bits.
func (c channelMask) value(pixel uint32) uint8 {
	if c.max == 0 {
		return 0
	}
	v := (pixel & c.mask) >> c.shift
	return uint8(v * 255 / c.max)
}
