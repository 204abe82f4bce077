package smoke

import (
	"fmt"
	"image"
	"strconv"
	"strings"
)

// Window is what xwininfo says about one top-level window.
type Window struct {
	Bounds   image.Rectangle // absolute position on the screen
	Viewable bool            // mapped, and its parents too
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
	return Window{
		Bounds:   image.Rect(vals[0], vals[1], vals[0]+vals[2], vals[1]+vals[3]),
		Viewable: fields["Map State"] == "IsViewable",
	}, nil
}
