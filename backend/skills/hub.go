package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"tinyelf/backend/proc"
)

// HubEntry is one skill offered by a SkillHub index.
type HubEntry struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	// URL is a .zip, a .tar.gz (.tgz) or a git repository (ending in .git,
	// or written git+https://...).
	URL string `json:"url"`
	// SHA256 is the archive's digest (hex); when given, install checks it.
	SHA256 string `json:"sha256,omitempty"`
	// Type is "skill-md" when URL is a lone SKILL.md (an Agent Skills
	// discovery index says so); otherwise URL is an archive or a git
	// repository.
	Type string `json:"type,omitempty"`
	// Index is the URL of the index the entry came from.
	Index string `json:"index"`
}

// hubIndex is the document an index URL serves: TinyElf's own ({skills:
// [{id, name, description, version, url, sha256}]}, no $schema), or an
// Agent Skills discovery index ($schema discoverySchema; entries {name,
// type, description, url, digest, version}).
type hubIndex struct {
	Schema string          `json:"$schema"`
	Skills []hubIndexEntry `json:"skills"`
}

type hubIndexEntry struct {
	HubEntry
	Digest string `json:"digest"`
}

// discoverySchema is the $schema of the Agent Skills discovery index
// (agentskills.io's well-known URI: /.well-known/agent-skills/index.json)
// that TinyElf reads.
const discoverySchema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// The entry types of a discovery index.
const (
	TypeSkillMD = "skill-md"
	TypeArchive = "archive"
)

// The SkillHub limits.
const (
	// MaxInstallBytes bounds a skill's unpacked size and its download.
	MaxInstallBytes = 20 << 20
	// maxInstallFiles bounds the files of one skill.
	maxInstallFiles = 5000
	// maxIndexBytes bounds one index document.
	maxIndexBytes = 5 << 20
	// indexTTL is how long a fetched index is reused (a search then an
	// install should not fetch twice).
	indexTTL = time.Minute
)

// Hub searches SkillHub indexes and installs skills from them into the
// user skills folder. It is safe for concurrent use.
type Hub struct {
	dir      string
	indexes  func() []string
	client   *http.Client
	git      string
	environ  func() []string
	children *proc.Children

	mu    sync.Mutex
	cache map[string]cachedIndex
	// installMu serializes installs and removals in this process.
	installMu sync.Mutex
}

type cachedIndex struct {
	at      time.Time
	entries []HubEntry
	skipped []string
}

// HubOption configures a Hub.
type HubOption func(*Hub)

// WithHTTPClient sets the client used for indexes and downloads (default:
// one with a two-minute timeout). Redirects are checked against the same
// URL rules whatever the client.
func WithHTTPClient(c *http.Client) HubOption { return func(h *Hub) { h.client = c } }

// WithGit sets the git binary used for git URLs ("" looks it up on PATH;
// "-" disables git installs).
func WithGit(path string) HubOption { return func(h *Hub) { h.git = path } }

// WithEnviron sets the environment git runs with for git URLs (the engine
// passes its clean child environment, without TinyElf's secrets); nil, the
// default, gives git only PATH, HOME and the locale.
func WithEnviron(env func() []string) HubOption { return func(h *Hub) { h.environ = env } }

// WithChildren sets the owner of the git processes (TinyElf's, which keeps
// them from outliving it and removes the settings' secrets from their
// environment); nil, the default, still runs each in its own group.
func WithChildren(c *proc.Children) HubOption { return func(h *Hub) { h.children = c } }

// NewHub returns a hub that installs into dir (Options.UserSkillsDir())
// from the index URLs indexes returns (read at each search, so a settings
// change applies at once; none configured means SkillHub is off).
func NewHub(dir string, indexes func() []string, opts ...HubOption) *Hub {
	h := &Hub{dir: dir, indexes: indexes, cache: map[string]cachedIndex{}}
	for _, o := range opts {
		o(h)
	}
	base := h.client
	if base == nil {
		base = &http.Client{Timeout: 2 * time.Minute}
	}
	c := *base
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		return checkFetchURL(req.URL)
	}
	h.client = &c
	return h
}

// Dir returns the folder skills are installed into.
func (h *Hub) Dir() string { return h.dir }

// ErrNoIndexes is returned when no SkillHub index is configured.
var ErrNoIndexes = errors.New("no SkillHub index is configured (add one in Settings → Skills)")

// checkFetchURL allows https everywhere and plain http only to this
// machine's loopback addresses.
func checkFetchURL(u *url.URL) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%s: plain http is allowed only to this machine (loopback); use https", u.Redacted())
	}
	return fmt.Errorf("%s: only https URLs are supported", u.Redacted())
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// SearchResult is the outcome of a search over every configured index.
type SearchResult struct {
	Entries []HubEntry `json:"entries"`
	// Problems are the indexes that could not be read, with why; the
	// others were still searched.
	Problems []string `json:"problems,omitempty"`
}

// Entries fetches every configured index (reusing one fetched in the last
// minute) and returns their entries, the first index winning for an ID
// offered by several. It fails only when no index is configured or none
// could be read.
func (h *Hub) Entries(ctx context.Context) (SearchResult, error) {
	var urls []string
	if h.indexes != nil {
		urls = h.indexes()
	}
	if len(urls) == 0 {
		return SearchResult{}, ErrNoIndexes
	}
	var res SearchResult
	seen := map[string]bool{}
	ok := 0
	for _, u := range urls {
		entries, skipped, err := h.fetchIndex(ctx, u)
		if err != nil {
			res.Problems = append(res.Problems, err.Error())
			continue
		}
		res.Problems = append(res.Problems, skipped...)
		ok++
		for _, e := range entries {
			if !seen[e.ID] {
				seen[e.ID] = true
				res.Entries = append(res.Entries, e)
			}
		}
	}
	if ok == 0 {
		return res, fmt.Errorf("no SkillHub index could be read: %s", strings.Join(res.Problems, "; "))
	}
	return res, nil
}

// fetchIndex reads one index (or its copy of the last minute). skipped
// says which entries could not be used, and why; the others still count.
func (h *Hub) fetchIndex(ctx context.Context, raw string) ([]HubEntry, []string, error) {
	h.mu.Lock()
	c, ok := h.cache[raw]
	h.mu.Unlock()
	if ok && time.Since(c.at) < indexTTL {
		return c.entries, c.skipped, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("index %q is not a URL: %v", raw, err)
	}
	if err := checkFetchURL(u); err != nil {
		return nil, nil, fmt.Errorf("index %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, fmt.Errorf("index %s: %v", u.Redacted(), err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot reach the SkillHub index %s (offline?): %v", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("the SkillHub index %s answered %s", u.Redacted(), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIndexBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read the SkillHub index %s: %v", u.Redacted(), err)
	}
	if len(body) > maxIndexBytes {
		return nil, nil, fmt.Errorf("the SkillHub index %s is over %s", u.Redacted(), humanBytes(maxIndexBytes))
	}
	var doc hubIndex
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, nil, fmt.Errorf("the SkillHub index %s is not an index document ({\"skills\": [...]}): %v", u.Redacted(), err)
	}
	discovery := doc.Schema != ""
	if discovery && doc.Schema != discoverySchema {
		// The discovery spec: an unknown schema is not processed.
		return nil, nil, fmt.Errorf("the SkillHub index %s is in a format TinyElf does not know ($schema %q; it reads %s)", u.Redacted(), doc.Schema, discoverySchema)
	}
	var entries []HubEntry
	var skipped []string
	for _, de := range doc.Skills {
		e := de.HubEntry
		e.ID, e.Name, e.URL = strings.TrimSpace(e.ID), strings.TrimSpace(e.Name), strings.TrimSpace(e.URL)
		if discovery {
			if why := fromDiscovery(&e, de.Digest); why != "" {
				skipped = append(skipped, fmt.Sprintf("the SkillHub index %s offers %q, which cannot be installed: %s", u.Redacted(), e.Name, why))
				continue
			}
		} else {
			e.Type = ""
		}
		if e.ID == "" || e.URL == "" {
			continue // unusable; the rest of the index still counts
		}
		if e.Name == "" {
			e.Name = e.ID
		}
		// Relative URLs are resolved against the index's (RFC 3986), as
		// the discovery spec has it.
		if ref, err := url.Parse(e.URL); err == nil && gitURL(e.URL) == "" {
			e.URL = u.ResolveReference(ref).String()
		}
		e.Index = raw
		entries = append(entries, e)
	}
	h.mu.Lock()
	h.cache[raw] = cachedIndex{at: time.Now(), entries: entries, skipped: skipped}
	h.mu.Unlock()
	return entries, skipped, nil
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// fromDiscovery fills the TinyElf fields of a discovery index entry (its
// name is its ID; its digest is checked at install) and says why it cannot
// be used, or "".
func fromDiscovery(e *HubEntry, digest string) string {
	e.ID, e.SHA256 = e.Name, ""
	switch {
	case e.Name == "":
		return "it has no name"
	case e.Type != TypeSkillMD && e.Type != TypeArchive:
		return fmt.Sprintf("its type %q is neither %s nor %s", e.Type, TypeSkillMD, TypeArchive)
	case !digestRE.MatchString(digest):
		// "Clients must not use unverified content."
		return fmt.Sprintf("its digest %q is not sha256:<64 lowercase hex digits>, and content that cannot be verified is not installed", digest)
	}
	e.SHA256 = strings.TrimPrefix(digest, "sha256:")
	return ""
}

// Search ranks the entries of every index against query (words matched in
// the ID, the name and the description; an exact or prefix name match
// first) and returns at most limit (0: 20). An empty query lists entries by
// name.
func (h *Hub) Search(ctx context.Context, query string, limit int) (SearchResult, error) {
	res, err := h.Entries(ctx)
	if err != nil {
		return res, err
	}
	if limit <= 0 {
		limit = 20
	}
	res.Entries = RankEntries(res.Entries, query)
	if len(res.Entries) > limit {
		res.Entries = res.Entries[:limit]
	}
	return res, nil
}

// RankEntries returns the entries matching query, best first.
func RankEntries(entries []HubEntry, query string) []HubEntry {
	q := strings.ToLower(strings.TrimSpace(query))
	words := strings.FieldsFunc(q, func(r rune) bool { return r == ' ' || r == ',' || r == '-' || r == '_' || r == '/' })
	type scored struct {
		e HubEntry
		s int
	}
	var list []scored
	for _, e := range entries {
		s := 0
		if q == "" {
			s = 1
		} else {
			s = scoreEntry(e, q, words)
		}
		if s > 0 {
			list = append(list, scored{e, s})
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].s != list[j].s {
			return list[i].s > list[j].s
		}
		return list[i].e.Name < list[j].e.Name
	})
	out := make([]HubEntry, len(list))
	for i, x := range list {
		out[i] = x.e
	}
	return out
}

func scoreEntry(e HubEntry, q string, words []string) int {
	name, id, desc := strings.ToLower(e.Name), strings.ToLower(e.ID), strings.ToLower(e.Description)
	s := 0
	switch {
	case name == q || id == q:
		s += 100
	case strings.HasPrefix(name, q) || strings.HasPrefix(id, q):
		s += 50
	}
	matched := 0
	for _, w := range words {
		hit := false
		if strings.Contains(name, w) {
			s += 10
			hit = true
		}
		if strings.Contains(id, w) {
			s += 6
			hit = true
		}
		if strings.Contains(desc, w) {
			s += 3
			if containsWord(desc, w) {
				s += 2
			}
			hit = true
		}
		if hit {
			matched++
		}
	}
	if matched == 0 && s == 0 {
		return 0
	}
	// Entries matching every word rank above those matching some.
	if matched == len(words) {
		s += 20
	}
	return s
}

func containsWord(text, w string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if f == w {
			return true
		}
	}
	return false
}

// Lookup finds the entry with that ID in the configured indexes.
func (h *Hub) Lookup(ctx context.Context, id string) (HubEntry, error) {
	res, err := h.Entries(ctx)
	if err != nil {
		return HubEntry{}, err
	}
	id = strings.TrimSpace(id)
	for _, e := range res.Entries {
		if e.ID == id {
			return e, nil
		}
	}
	for _, e := range res.Entries { // a name is what people type
		if e.Name == id {
			return e, nil
		}
	}
	msg := fmt.Sprintf("no skill with id %q in the SkillHub indexes; use skillhub_search to find its id", id)
	if len(res.Problems) > 0 {
		msg += " (some indexes could not be read: " + strings.Join(res.Problems, "; ") + ")"
	}
	return HubEntry{}, errors.New(msg)
}
