package skills

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tinyelf/backend/config"
)

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestDiscoveryIndex: an Agent Skills discovery index (the well-known URI
// format, $schema 0.2.0) is searched and installed from like TinyElf's own:
// a lone SKILL.md and an archive with its files at the root, URLs resolved
// against the index's, digests checked; entries of an unknown type or
// without a digest are left out and said so; an unknown $schema is not
// read at all.
func TestDiscoveryIndex(t *testing.T) {
	srv := newHubServer(t)
	md := []byte(skillMD("code-review", "Review code for bugs.", "Check the diff."))
	tgz := makeTarGz(t, []archiveFile{
		{name: "SKILL.md", body: skillMD("wrangler", "Deploy Workers projects.", "See references/cli.md.")},
		{name: "references/cli.md", body: "wrangler deploy"},
	})
	srv.put("/.well-known/agent-skills/code-review/SKILL.md", md)
	srv.put("/.well-known/agent-skills/wrangler.tar.gz", tgz)
	srv.put("/cdn/tampered/SKILL.md", []byte(skillMD("tampered", "Changed since.", "")))
	index := func(schema string) []byte {
		b, _ := json.Marshal(map[string]any{"$schema": schema, "skills": []map[string]any{
			{"name": "code-review", "type": "skill-md", "description": "Review code for bugs.", "url": "code-review/SKILL.md", "digest": digest(md)},
			{"name": "wrangler", "type": "archive", "description": "Deploy Workers projects.", "url": "/.well-known/agent-skills/wrangler.tar.gz", "digest": digest(tgz), "version": "1.2.0"},
			{"name": "tampered", "type": "skill-md", "description": "x", "url": srv.URL + "/cdn/tampered/SKILL.md", "digest": digest(md)},
			{"name": "plugin", "type": "plugin", "description": "x", "url": "p.zip", "digest": digest(md)},
			{"name": "unverified", "type": "archive", "description": "x", "url": "u.tar.gz"},
		}})
		return b
	}
	idx := srv.put("/.well-known/agent-skills/index.json", index(discoverySchema))
	dir := filepath.Join(t.TempDir(), "skills")
	hub := NewHub(dir, func() []string { return []string{idx} })
	ctx := context.Background()

	res, err := hub.Search(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range res.Entries {
		names = append(names, e.ID)
	}
	if strings.Join(names, " ") != "code-review tampered wrangler" {
		t.Errorf("entries %v", names)
	}
	problems := strings.Join(res.Problems, "\n")
	for _, want := range []string{`offers "plugin", which cannot be installed: its type "plugin"`, `offers "unverified", which cannot be installed: its digest ""`} {
		if !strings.Contains(problems, want) {
			t.Errorf("problems lack %q:\n%s", want, problems)
		}
	}

	inst, err := hub.Install(ctx, "code-review")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "code-review", "SKILL.md")); string(b) != string(md) {
		t.Errorf("code-review SKILL.md = %q", b)
	}
	if inst, err = hub.Install(ctx, "wrangler"); err != nil || inst.Version != "1.2.0" {
		t.Fatalf("wrangler: %+v %v", inst, err)
	}
	if !fileExists(filepath.Join(dir, "wrangler", "references", "cli.md")) {
		t.Error("the archive's files are not installed")
	}
	snap := Load(Options{DataDir: filepath.Dir(dir), NoDefaultBuiltins: true})
	if got := strings.Join(snap.Names(), " "); got != "code-review wrangler" {
		t.Errorf("loaded %q", got)
	}
	if _, err := hub.Install(ctx, "tampered"); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("a SKILL.md that does not match its digest: %v", err)
	}

	other := srv.put("/other/index.json", index("https://schemas.agentskills.io/discovery/9.0.0/schema.json"))
	_, err = NewHub(dir, func() []string { return []string{other} }).Search(ctx, "", 0)
	if err == nil || !strings.Contains(err.Error(), "in a format TinyElf does not know") {
		t.Errorf("an unknown $schema: %v", err)
	}
}

// offline is a transport with no network.
type offline struct{}

func (offline) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("dial tcp: lookup developers.cloudflare.com: no such host")
}

// TestDefaultIndexOffline: with no list of their own, the user searches
// TinyElf's default index, and offline the search and the install say the
// index could not be reached, naming it.
func TestDefaultIndexOffline(t *testing.T) {
	def := config.DefaultHubIndexes()
	if len(def) == 0 {
		t.Fatal("no default index")
	}
	hub := NewHub(t.TempDir(), func() []string { return config.Skills{}.Indexes() }, WithHTTPClient(&http.Client{Transport: offline{}}))
	ctx := context.Background()
	want := "cannot reach the SkillHub index " + def[0] + " (offline?)"
	if _, err := hub.Search(ctx, "workers", 0); err == nil || !strings.Contains(err.Error(), "no SkillHub index could be read") || !strings.Contains(err.Error(), want) {
		t.Errorf("search offline: %v", err)
	}
	if _, err := hub.Install(ctx, "wrangler"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("install offline: %v", err)
	}
	// Removed by the user: none, and SkillHub says it is off.
	none := NewHub(t.TempDir(), func() []string { return config.Skills{HubIndexes: []string{}}.Indexes() })
	if _, err := none.Search(ctx, "x", 0); !errors.Is(err, ErrNoIndexes) {
		t.Errorf("no index: %v", err)
	}
}
