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
	// in order. Absent (nil) means DefaultHubIndexes; an empty list, which
	// the settings file keeps as "hubIndexes": [], means none (SkillHub is
	// then off). Each serves TinyElf's JSON document {skills: [{id, name,
	// description, version, url, sha256}]} or an Agent Skills discovery
	// index (/.well-known/agent-skills/index.json). Read it through
	// Indexes.
	HubIndexes []string `json:"hubIndexes,omitzero"`
}

// DefaultHubIndexes returns the SkillHub indexes TinyElf searches until
// the user sets their own list: the Agent Skills discovery index of
// Cloudflare's developer documentation (the authors of the discovery
// RFC), which serves skills for Workers, Wrangler, Durable Objects and the
// Agents SDK. Removing it in Settings → Skills (or writing "hubIndexes": []
// in the settings file) turns it off.
func DefaultHubIndexes() []string {
	return []string{"https://developers.cloudflare.com/.well-known/agent-skills/index.json"}
}

// Indexes returns the SkillHub indexes in effect: the user's list, or
// DefaultHubIndexes when they never set one.
func (s Skills) Indexes() []string {
	if s.HubIndexes == nil {
		return DefaultHubIndexes()
	}
	return s.HubIndexes
}

// maxHubIndexes bounds the SkillHub indexes one settings file may name.
const maxHubIndexes = 20

// NormalizeHubIndexes checks SkillHub index URLs as the user typed them and
// returns them trimmed, without blanks and duplicates (an empty, non-nil
// list when none is left: none is a choice, not the default). An index is
// https, or plain http on this machine's loopback only (a local mirror, the
// tests).
func NormalizeHubIndexes(in []string) ([]string, error) {
	out := []string{}
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
