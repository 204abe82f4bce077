package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Skills is the skills' configuration (Settings → Skills).
type Skills struct {
	// HubIndexes are the SkillHub index URLs searched and installed from,
	// in order; none by default (SkillHub is then off). Each serves a JSON
	// document {skills: [{id, name, description, version, url, sha256}]}.
	HubIndexes []string `json:"hubIndexes,omitempty"`
}

// maxHubIndexes bounds the SkillHub indexes one settings file may name.
const maxHubIndexes = 20

// NormalizeHubIndexes checks SkillHub index URLs as the user typed them and
// returns them trimmed, without blanks and duplicates. An index is https, or
// plain http on this machine's loopback only (a local mirror, the tests).
func NormalizeHubIndexes(in []string) ([]string, error) {
	var out []string
	for _, raw := range in {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("SkillHub index %q is not a URL (write https://host/path/index.json)", raw)
		}
		switch u.Scheme {
		case "https":
		case "http":
			if h := u.Hostname(); h != "localhost" && !isLoopbackIP(h) {
				return nil, fmt.Errorf("SkillHub index %q: plain http is allowed only on this machine (localhost); use https", raw)
			}
		default:
			return nil, fmt.Errorf("SkillHub index %q: want an https URL", raw)
		}
		if u.User != nil {
			return nil, fmt.Errorf("SkillHub index %q: credentials in the URL are not supported", u.Redacted())
		}
		dup := false
		for _, o := range out {
			dup = dup || o == raw
		}
		if !dup {
			out = append(out, raw)
		}
	}
	if len(out) > maxHubIndexes {
		return nil, fmt.Errorf("%d SkillHub indexes are too many (at most %d)", len(out), maxHubIndexes)
	}
	return out, nil
}

func isLoopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
