package skills

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
)

// HubRecordFile is written into every skill SkillHub installed, saying
// where it came from; Remove and reinstalls rely on it.
const HubRecordFile = ".skillhub.json"

// HubRecord is the content of HubRecordFile.
type HubRecord struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Version     string    `json:"version,omitempty"`
	URL         string    `json:"url"`
	SHA256      string    `json:"sha256,omitempty"`
	Index       string    `json:"index,omitempty"`
	InstalledAt time.Time `json:"installedAt"`
}

// Installed describes a finished install.
type Installed struct {
	Name    string `json:"name"`
	Dir     string `json:"dir"`
	ID      string `json:"id"`
	Version string `json:"version,omitempty"`
	// Replaced is set when an earlier SkillHub install of the skill was
	// replaced.
	Replaced bool `json:"replaced,omitempty"`
	// Warnings are the validator's warnings and the problems it forgave.
	Warnings []string `json:"warnings,omitempty"`
}

// Install installs the skill with that ID from the configured indexes.
func (h *Hub) Install(ctx context.Context, id string) (Installed, error) {
	e, err := h.Lookup(ctx, id)
	if err != nil {
		return Installed{}, err
	}
	return h.InstallEntry(ctx, e)
}

// InstallEntry downloads, checks and installs one entry into the user
// skills folder: a .zip or .tar.gz is downloaded (at most 20 MB) and its
// sha256 checked when the entry has one; a git URL is cloned shallow with
// the system git. The unpacked skill must stay under 20 MB and 5000 files,
// hold no absolute or ".." paths, no symbolic links pointing out and no
// special files, and pass validation. It is then moved into place in one
// rename: a failed install leaves nothing behind, and a skill of the same
// name that SkillHub did not install is never replaced.
func (h *Hub) InstallEntry(ctx context.Context, e HubEntry) (Installed, error) {
	if h.dir == "" {
		return Installed{}, errors.New("no user skills folder to install into")
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return Installed{}, fmt.Errorf("create the skills folder %s: %w", h.dir, err)
	}
	unlock, err := h.lock()
	if err != nil {
		return Installed{}, err
	}
	defer unlock()
	staging, err := os.MkdirTemp(h.dir, ".install-")
	if err != nil {
		return Installed{}, fmt.Errorf("prepare the install: %w", err)
	}
	defer os.RemoveAll(staging)
	tree := filepath.Join(staging, "tree")
	if err := h.fetchInto(ctx, e, staging, tree); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", e.ID, err)
	}
	skillDir, err := findSkillRoot(tree)
	if err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", e.ID, err)
	}
	name, warnings, err := checkInstallable(skillDir, entryFolderName(e))
	if err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", e.ID, err)
	}
	rec := HubRecord{ID: e.ID, Name: name, Version: e.Version, URL: e.URL, SHA256: e.SHA256, Index: e.Index, InstalledAt: time.Now().UTC()}
	if err := config.WriteJSONAtomic(filepath.Join(skillDir, HubRecordFile), rec); err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", e.ID, err)
	}
	target := filepath.Join(h.dir, name)
	replaced, err := swapInto(skillDir, target, staging)
	if err != nil {
		return Installed{}, fmt.Errorf("install %s: %w", e.ID, err)
	}
	return Installed{Name: name, Dir: target, ID: e.ID, Version: e.Version, Replaced: replaced, Warnings: warnings}, nil
}

// lock serializes installs and removals, in this process and across
// processes (the window and a `tinyelf skills install` at once).
func (h *Hub) lock() (func(), error) {
	h.installMu.Lock()
	release, err := config.LockFile(filepath.Join(h.dir, ".skillhub.lock"))
	if err != nil {
		h.installMu.Unlock()
		return nil, fmt.Errorf("lock the skills folder %s: %w", h.dir, err)
	}
	return func() { release(); h.installMu.Unlock() }, nil
}

// swapInto moves dir to target. An existing target must be an earlier
// SkillHub install; it is moved aside into staging first (removed with it)
// and moved back if the final rename fails.
func swapInto(dir, target, staging string) (bool, error) {
	if _, err := os.Lstat(target); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
		if err := os.Rename(dir, target); err != nil {
			return false, fmt.Errorf("move the skill into place: %w", err)
		}
		return false, nil
	}
	if _, err := os.Stat(filepath.Join(target, HubRecordFile)); err != nil {
		return false, fmt.Errorf("a skill named %q already exists at %s and was not installed from SkillHub; remove or rename it first", filepath.Base(target), target)
	}
	aside := filepath.Join(staging, "previous")
	if err := os.Rename(target, aside); err != nil {
		return false, fmt.Errorf("move the previous version aside: %w", err)
	}
	if err := os.Rename(dir, target); err != nil {
		if rerr := os.Rename(aside, target); rerr != nil {
			return false, fmt.Errorf("move the skill into place: %v; the previous version is left at %s: %w", err, aside, rerr)
		}
		return false, fmt.Errorf("move the skill into place: %w", err)
	}
	return true, nil
}

// archiveKind tells how to unpack an entry's URL.
type archiveKind int

const (
	kindUnknown archiveKind = iota
	kindZip
	kindTarGz
	kindGit
)

// gitURL returns the URL to clone for a git entry, or "" when the URL is
// not a git repository's.
func gitURL(raw string) string {
	switch {
	case strings.HasPrefix(raw, "git+"):
		return strings.TrimPrefix(raw, "git+")
	case strings.HasSuffix(strings.TrimSuffix(raw, "/"), ".git"), strings.HasPrefix(raw, "file://"):
		return raw
	}
	return ""
}

func kindOf(u *url.URL) archiveKind {
	p := strings.ToLower(u.Path)
	switch {
	case strings.HasSuffix(p, ".zip"):
		return kindZip
	case strings.HasSuffix(p, ".tar.gz"), strings.HasSuffix(p, ".tgz"):
		return kindTarGz
	}
	return kindUnknown
}

// fetchInto puts the entry's files into tree.
func (h *Hub) fetchInto(ctx context.Context, e HubEntry, staging, tree string) error {
	if g := gitURL(e.URL); g != "" {
		return h.clone(ctx, g, tree)
	}
	u, err := url.Parse(e.URL)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", e.URL, err)
	}
	if err := checkFetchURL(u); err != nil {
		return err
	}
	archive := filepath.Join(staging, "download")
	kind, err := h.download(ctx, u, e.SHA256, archive)
	if err != nil {
		return err
	}
	if e.Type == TypeSkillMD { // a skill that is its SKILL.md alone
		if err := os.Mkdir(tree, 0o755); err != nil {
			return err
		}
		skill := filepath.Join(tree, "SKILL.md")
		if err := os.Rename(archive, skill); err != nil {
			return err
		}
		return os.Chmod(skill, 0o644)
	}
	switch kind {
	case kindZip:
		return extractZip(archive, tree)
	case kindTarGz:
		return extractTarGz(archive, tree)
	}
	return fmt.Errorf("%s is neither a .zip nor a .tar.gz archive", u.Redacted())
}

// download saves the URL to file, at most MaxInstallBytes, checks its
// sha256 when want is given, and tells the archive kind (from the name, or
// else from the first bytes).
func (h *Hub) download(ctx context.Context, u *url.URL, want, file string) (archiveKind, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return kindUnknown, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return kindUnknown, fmt.Errorf("cannot download %s (offline?): %v", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return kindUnknown, fmt.Errorf("downloading %s failed: %s", u.Redacted(), resp.Status)
	}
	if resp.ContentLength > MaxInstallBytes {
		return kindUnknown, fmt.Errorf("%s is %s, over the %s limit", u.Redacted(), humanBytes(resp.ContentLength), humanBytes(MaxInstallBytes))
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return kindUnknown, err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, sum), io.LimitReader(resp.Body, MaxInstallBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return kindUnknown, fmt.Errorf("download %s: %v", u.Redacted(), err)
	}
	if n > MaxInstallBytes {
		return kindUnknown, fmt.Errorf("%s is over the %s limit", u.Redacted(), humanBytes(MaxInstallBytes))
	}
	if want = strings.ToLower(strings.TrimSpace(want)); want != "" {
		if got := hex.EncodeToString(sum.Sum(nil)); got != want {
			return kindUnknown, fmt.Errorf("the download's sha256 is %s, not the %s the index gives; refusing it (the file changed or was tampered with)", got, want)
		}
	}
	if k := kindOf(u); k != kindUnknown {
		return k, nil
	}
	head := make([]byte, 4)
	if hf, err := os.Open(file); err == nil {
		_, _ = io.ReadFull(hf, head)
		hf.Close()
	}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return kindZip, nil
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return kindTarGz, nil
	}
	return kindUnknown, nil
}

// clone makes a shallow clone of a git URL into tree with the system git,
// then drops its .git folder and checks the limits.
func (h *Hub) clone(ctx context.Context, raw, tree string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	if u.Scheme != "file" {
		if err := checkFetchURL(u); err != nil {
			return err
		}
	}
	git := h.git
	switch git {
	case "-":
		return errors.New("installing from git is turned off here")
	case "":
		if git, err = exec.LookPath("git"); err != nil {
			return fmt.Errorf("%s is a git repository, and git is not installed on this machine", u.Redacted())
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := h.children.CommandContext(ctx, git, "-c", "core.symlinks=true",
		"clone", "--depth", "1", "--single-branch", "--no-tags", "--quiet", "--", raw, tree)
	cmd.Environ, cmd.Secrets, cmd.Named = h.gitEnviron(), proc.Secrets{Names: gitSteering}, gitSettings
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500] + "…"
		}
		return fmt.Errorf("git clone %s failed: %v %s", u.Redacted(), err, msg)
	}
	if err := os.RemoveAll(filepath.Join(tree, ".git")); err != nil {
		return err
	}
	return checkTree(tree)
}

// gitEnviron is the environment git clone starts from, before the child
// constructor removes TinyElf's secrets from it: the one WithEnviron set
// (the engine's clean child environment), or, by default, only PATH, HOME,
// the locale and the temporary folder (never the whole environment: it may
// hold API keys a hostile repository's helpers could read).
func (h *Hub) gitEnviron() []string {
	if h.environ != nil {
		return h.environ()
	}
	base := []string{}
	for _, k := range []string{"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "USERPROFILE"} {
		if v, ok := os.LookupEnv(k); ok {
			base = append(base, k+"="+v)
		}
	}
	return base
}

// gitSteering are the variables that would make a clone read another
// repository, configuration, credential helper or transport command than
// the one named: they are dropped from whatever environment git gets.
var gitSteering = []string{"GIT_*", "SSH_AUTH_SOCK", "XDG_CONFIG_HOME"}

// gitSettings turn prompts and LFS downloads off and leave the user's
// global and system git configuration out (a url.insteadOf or a credential
// helper there must not apply to a skill's clone).
var gitSettings = []string{
	"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_LFS_SKIP_SMUDGE=1",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull,
}

// findSkillRoot finds the skill's folder in an unpacked tree: the tree
// itself when SKILL.md is at its top, or its only folder (archives usually
// wrap their content in one, such as repo-main/).
func findSkillRoot(tree string) (string, error) {
	if hasSkillFile(tree) {
		return tree, nil
	}
	entries, err := os.ReadDir(tree)
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "__MACOSX" {
			dirs = append(dirs, e.Name())
		}
	}
	if len(dirs) == 1 && hasSkillFile(filepath.Join(tree, dirs[0])) {
		return filepath.Join(tree, dirs[0]), nil
	}
	return "", errors.New("there is no SKILL.md at the top of the download or in its single top folder")
}

// hasSkillFile reports whether dir holds a skill file under one of the
// names the loader reads (SKILL.md, or skill.md).
func hasSkillFile(dir string) bool {
	return fileExists(filepath.Join(dir, "SKILL.md")) || fileExists(filepath.Join(dir, "skill.md"))
}

// entryFolderName is the folder name a skill without a name: field gets
// when installed from e: the entry's name, or the last part of its ID.
func entryFolderName(e HubEntry) string {
	for _, n := range []string{e.Name, e.ID[strings.LastIndexAny(e.ID, "/:")+1:]} {
		if n = strings.TrimSpace(n); n != "" && folderNameProblem(n) == "" {
			return n
		}
	}
	return "skill"
}

// checkInstallable decides whether the unpacked skill in dir may be
// installed, and under which name, by the loader's own rules (LoadFolder):
// install accepts exactly what TinyElf loads, no more, no less. What the
// loader forgives comes back as warnings, with what the strict validator
// (`tinyelf skills validate`) would say, so the user can tell the author.
// folderName is what a skill without a name: is called.
func checkInstallable(dir, folderName string) (string, []string, error) {
	sk, inv := LoadFolder(dir, folderName)
	switch {
	case inv != nil:
		p := inv.Problem
		where := "SKILL.md"
		if p.Line > 0 {
			where += fmt.Sprintf(":%d", p.Line)
		}
		return "", nil, fmt.Errorf("TinyElf would not load this skill (%s: %s)", where, p.Message)
	case sk == nil:
		return "", nil, errors.New("there is no SKILL.md in the skill's folder")
	}
	warnings := slices.Clone(sk.Warnings)
	data, err := os.ReadFile(filepath.Join(dir, filepath.Base(sk.File)))
	if err != nil {
		return "", nil, err
	}
	for _, p := range validateData(data, "SKILL.md", sk.Name, dir) {
		if p.Rule != "name-dir-mismatch" { // the folder is named after the skill
			warnings = append(warnings, "skills validate: "+p.String())
		}
	}
	return sk.Name, warnings, nil
}

// ErrNotInstalled is returned (wrapped) by Remove for a skill SkillHub did
// not install.
var ErrNotInstalled = errors.New("not installed from SkillHub")

// Remove deletes a skill SkillHub installed into the user skills folder. A
// skill the user made by hand, or one elsewhere, is never removed.
func (h *Hub) Remove(name string) error {
	if name == "" || folderNameProblem(name) != "" {
		return fmt.Errorf("%q is not a skill name", name)
	}
	unlock, err := h.lock()
	if err != nil {
		return err
	}
	defer unlock()
	dir := filepath.Join(h.dir, name)
	if _, err := os.Stat(filepath.Join(dir, HubRecordFile)); err != nil {
		if _, derr := os.Stat(dir); derr != nil {
			return fmt.Errorf("no installed skill %q in %s", name, h.dir)
		}
		return fmt.Errorf("remove %s: %w (remove the folder %s yourself if you mean it)", name, ErrNotInstalled, dir)
	}
	// Move it out of sight first, so a half-finished removal never leaves
	// a broken skill behind.
	aside := filepath.Join(h.dir, ".remove-"+name+"-"+randomSuffix())
	if err := os.Rename(dir, aside); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	if err := os.RemoveAll(aside); err != nil {
		return fmt.Errorf("remove %s: the skill is gone but %s is left: %w", name, aside, err)
	}
	return nil
}

// Record reads the SkillHub record of an installed skill's folder.
func Record(dir string) (HubRecord, bool) {
	b, err := os.ReadFile(filepath.Join(dir, HubRecordFile))
	if err != nil {
		return HubRecord{}, false
	}
	var r HubRecord
	if json.Unmarshal(b, &r) != nil {
		return HubRecord{}, false
	}
	return r, true
}
