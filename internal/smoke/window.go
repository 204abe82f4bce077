package smoke

import (
	"fmt"
	"image"
	"regexp"
	"strconv"
	"strings"
)

// Window is what xwininfo says about one top-level window.
type Window struct {
	ID       string          // the X window id ("0x1a00003")
	Bounds   image.Rectangle // absolute position on the screen
	Viewable bool            // mapped, and its parents too
}

var windowID = regexp.MustCompile(`Window id: (0x[0-9a-fA-F]+)`)

// IconSize reads the first icon's size from `xprop -len 8 -id W
// _NET_WM_ICON` (the property starts with width, height); ok is false
// when the window has no icon.
func IconSize(out string) (width, height int, ok bool) {
	m := iconHeader.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, false
	}
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	return w, h, w > 0 && h > 0
}

// xprop prints the property as "= 512, 512" with -len, or describes it as
// "Icon (512 x 512):".
var iconHeader = regexp.MustCompile(`_NET_WM_ICON\(CARDINAL\)\s*=\s*(?:Icon \()?\s*(\d+)\s*(?:,|x)\s*(\d+)`)

// IconPixmap reads the icon pixmap's id from `xprop -id W WM_HINTS`
// ("bitmap id # to use for icon: 0x200012"); ok is false when the hints
// name none. GTK sets it with the window's icon. With no window manager
// running (Xvfb) it is the only icon property GTK sets: _NET_WM_ICON waits
// for a window manager that announces it.
func IconPixmap(out string) (string, bool) {
	m := iconPixmap.FindStringSubmatch(out)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var iconPixmap = regexp.MustCompile(`bitmap id # to use for icon:\s*(0x[0-9a-fA-F]+)`)

// PropertyText reads a text property from `xprop -id W NAME` output
// (`_NET_WM_NAME(UTF8_STRING) = "TinyElf"`); ok is false when it is unset.
func PropertyText(out, name string) (string, bool) {
	for line := range strings.SplitSeq(out, "\n") {
		key, value, found := strings.Cut(line, " = ")
		if !found || !strings.HasPrefix(strings.TrimSpace(key), name+"(") {
			continue
		}
		v, err := strconv.Unquote(strings.TrimSpace(value))
		if err != nil {
			return strings.Trim(strings.TrimSpace(value), `"`), true
		}
		return v, true
	}
	return "", false
}

// ParseXwininfo reads the output of `xwininfo -name NAME` (or -id).
func ParseXwininfo(out string) (Window, error) {
	fields := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok {
			fields[key] = strings.TrimSpace(value)
		}
	}
	num := func(key string) (int, error) {
		v, ok := fields[key]
		if !ok {
			return 0, fmt.Errorf("xwininfo output has no %q line", key)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("xwininfo %q: %w", key, err)
		}
		return n, nil
	}
	var vals [4]int
	for i, key := range []string{"Absolute upper-left X", "Absolute upper-left Y", "Width", "Height"} {
		n, err := num(key)
		if err != nil {
			return Window{}, err
		}
		vals[i] = n
	}
	id := ""
	if m := windowID.FindStringSubmatch(out); m != nil {
		id = m[1]
	}
	return Window{
		ID:       id,
		Bounds:   image.Rect(vals[0], vals[1], vals[0]+vals[2], vals[1]+vals[3]),
		Viewable: fields["Map State"] == "IsViewable",
	}, nil
}
