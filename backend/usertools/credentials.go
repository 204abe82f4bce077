package usertools

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"tinyelf/backend/config"
	"tinyelf/backend/proc"
	"tinyelf/internal/atomicfile"
)

// Where a credential was found, in the order they are looked at (seed
// 002's get_credential).
const (
	FromAgent       = "agent"       // the agent profile's credentials (settings.json agents[].credentials)
	FromSettings    = "settings"    // Settings credentials (settings.json "credentials")
	FromVault       = "vault"       // the encrypted vault in the data folder
	FromSharedFile  = "shared_file" // <data dir>/shared/credentials.json
	FromEnvironment = "environment" // TinyElf's own environment
)

// Files of the credential sources inside the data folder.
const (
	VaultFile           = "vault.json"
	VaultKeyFile        = "vault.key"
	SharedCredentialDir = "shared"
	SharedCredentials   = "credentials.json"
)

// CredentialsTableVar is the variable a tool process gets the credentials
// of its call in, besides one variable each: a JSON list of {"credential",
// "key", "env", "value"}, which the Python helpers' get_credential(name, …)
// looks its name up in.
const CredentialsTableVar = "TINYELF_CREDENTIALS"

// Credentials resolves the credentials user tools declare. It is safe for
// concurrent use.
type Credentials struct {
	settings   func() map[string]config.Credential
	agent      func(agent string) map[string]config.Credential
	vault      *Vault
	sharedFile string
	getenv     func(string) string
}

// resolvedCredential is one credential found for a call.
type resolvedCredential struct {
	Spec  CredentialSpec
	Env   string
	Value string
	From  string
}

// Resolve looks a credential up for an agent in the seed's order — the
// Settings credential of its name (the agent profile's own first, where it
// sets one), the vault entry of its variable (then of its name), the
// shared credentials file, the environment — and returns its value and
// where it was found; from is "" when it is nowhere. A source that cannot
// be read is skipped, and its problem is returned for the UI.
func (c *Credentials) Resolve(agent string, spec CredentialSpec) (value, from string, problems []string) {
	name, key := spec.settingsName(), spec.keyName()
	named := func(creds map[string]config.Credential) string {
		cred, ok := creds[name]
		if !ok {
			return ""
		}
		if key == "api_key" && cred.APIKey != "" {
			return cred.APIKey
		}
		return cred.Keys[key]
	}
	if c.agent != nil && agent != "" && name != "" {
		if v := named(c.agent(agent)); v != "" {
			return v, FromAgent, nil
		}
	}
	if c.settings != nil && name != "" {
		if v := named(c.settings()); v != "" {
			return v, FromSettings, nil
		}
	}
	if c.vault != nil {
		for _, n := range uniqueNonEmpty(spec.Env, name) {
			if !envNamePattern.MatchString(n) {
				continue // the vault holds variable names only
			}
			v, ok, err := c.vault.Get(n)
			if err != nil {
				problems = append(problems, err.Error())
				break
			}
			if ok && v != "" {
				return v, FromVault, problems
			}
		}
	}
	if spec.Env == "" {
		return "", "", problems
	}
	if c.sharedFile != "" {
		m, err := readSharedCredentials(c.sharedFile)
		if err != nil {
			problems = append(problems, err.Error())
		} else if v := m[spec.Env]; v != "" {
			return v, FromSharedFile, problems
		}
	}
	if c.getenv != nil {
		if v := c.getenv(spec.Env); v != "" {
			if (proc.Secrets{Names: config.SecretEnvNames()}).Hides(spec.Env + "=" + v) {
				// TinyElf's own keys reach no child process, a tool included.
				return "", "", append(problems, fmt.Sprintf("%s is one of TinyElf's own key variables, which no tool gets from the environment; "+
					"set the credential in Settings or the vault instead", spec.Env))
			}
			return v, FromEnvironment, problems
		}
	}
	return "", "", problems
}

func uniqueNonEmpty(xs ...string) []string {
	var out []string
	for _, x := range xs {
		if x != "" && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// resolveAll resolves every spec for an agent; missing ones are left out
// and named as the user would set them.
func (c *Credentials) resolveAll(agent string, specs []CredentialSpec) (found []resolvedCredential, missing []string) {
	for _, s := range specs {
		v, from, _ := c.Resolve(agent, s)
		if from == "" {
			missing = append(missing, s.describe())
			continue
		}
		found = append(found, resolvedCredential{Spec: s, Env: s.Env, Value: v, From: from})
	}
	return found, missing
}

// credentialEnv returns the variables a tool process gets for the
// credentials of its call: one per declared credential (the first one of a
// variable wins), one per credential its code asks for whose variable no
// declared one sets, and the table (CredentialsTableVar) of them all.
func credentialEnv(creds []resolvedCredential) []string {
	if len(creds) == 0 {
		return nil
	}
	var env []string
	set := map[string]bool{}
	for _, pass := range []bool{false, true} {
		for _, c := range creds {
			if c.Spec.Code != pass || c.Env == "" || set[c.Env] {
				continue
			}
			set[c.Env] = true
			env = append(env, c.Env+"="+c.Value)
		}
	}
	type entry struct {
		Credential string `json:"credential"`
		Key        string `json:"key"`
		Env        string `json:"env"`
		Value      string `json:"value"`
	}
	table := make([]entry, len(creds))
	for i, c := range creds {
		table[i] = entry{Credential: c.Spec.settingsName(), Key: c.Spec.keyName(), Env: c.Env, Value: c.Value}
	}
	b, _ := json.Marshal(table)
	return append(env, CredentialsTableVar+"="+string(b))
}

// readSharedCredentials reads the flat {"VAR": "value"} file; a missing
// file is empty.
func readSharedCredentials(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s is not a JSON object of variable names and string values: %v", path, err)
	}
	return m, nil
}

// Vault is the encrypted credential file of the data folder
// (<data dir>/vault.json): a JSON document {"shared": {"VAR": "value"}}
// sealed with AES-256-GCM under a random key kept beside it in vault.key
// (mode 0600, created on the first write).
//
// What it protects against: the secrets never sit in plain text in a file
// that gets copied, synced, attached to a bug report or grepped; the vault
// file alone reveals nothing. What it does not: a program running as the
// same user can read the key too — as it could read an OS keyring entry
// of an unlocked session. The OS keyring was not chosen because on Linux
// it needs a running Secret Service, which headless `tinyelf serve`, CI
// and many minimal desktops lack, and the vault must work everywhere
// TinyElf does.
//
// A Vault is safe for concurrent use within a process; across processes
// the last write wins (each write replaces the file atomically).
type Vault struct {
	path, keyPath string
	mu            sync.Mutex
}

// NewVault returns the vault of a data folder.
func NewVault(dataDir string) *Vault {
	return &Vault{path: filepath.Join(dataDir, VaultFile), keyPath: filepath.Join(dataDir, VaultKeyFile)}
}

type vaultFile struct {
	Version int    `json:"version"`
	Cipher  string `json:"cipher"`
	Nonce   string `json:"nonce"`
	Data    string `json:"data"`
}

type vaultContent struct {
	Shared map[string]string `json:"shared"`
}

// Get returns a secret by its variable name.
func (v *Vault) Get(name string) (string, bool, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, err := v.read()
	if err != nil {
		return "", false, err
	}
	s, ok := c.Shared[name]
	return s, ok, nil
}

// Names returns the variable names the vault holds, sorted.
func (v *Vault) Names() ([]string, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, err := v.read()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(c.Shared))
	for k := range c.Shared {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// Set stores a secret; an empty value removes it.
func (v *Vault) Set(name, value string) error {
	if !envNamePattern.MatchString(name) {
		return fmt.Errorf("%q is not a valid environment variable name", name)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	c, err := v.read()
	if err != nil {
		return err
	}
	if value == "" {
		delete(c.Shared, name)
	} else {
		c.Shared[name] = value
	}
	return v.write(c)
}

func (v *Vault) read() (vaultContent, error) {
	c := vaultContent{Shared: map[string]string{}}
	b, err := os.ReadFile(v.path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read the vault: %w", err)
	}
	var f vaultFile
	if err := json.Unmarshal(b, &f); err != nil || f.Cipher != "AES-256-GCM" {
		return c, fmt.Errorf("the vault %s is damaged (not a TinyElf vault); move it away to start a new one", v.path)
	}
	key, err := v.key(false)
	if err != nil {
		return c, err
	}
	nonce, err1 := base64.StdEncoding.DecodeString(f.Nonce)
	data, err2 := base64.StdEncoding.DecodeString(f.Data)
	if err1 != nil || err2 != nil {
		return c, fmt.Errorf("the vault %s is damaged; move it away to start a new one", v.path)
	}
	gcm, err := newGCM(key)
	if err != nil {
		return c, err
	}
	plain, err := gcm.Open(nil, nonce, data, []byte(VaultFile))
	if err != nil {
		return c, fmt.Errorf("the vault %s cannot be opened with %s (was the key replaced?)", v.path, v.keyPath)
	}
	if err := json.Unmarshal(plain, &c); err != nil {
		return c, fmt.Errorf("the vault %s is damaged: %v", v.path, err)
	}
	if c.Shared == nil {
		c.Shared = map[string]string{}
	}
	return c, nil
}

func (v *Vault) write(c vaultContent) error {
	key, err := v.key(true)
	if err != nil {
		return err
	}
	gcm, err := newGCM(key)
	if err != nil {
		return err
	}
	plain, err := json.Marshal(c)
	if err != nil {
		return err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	f := vaultFile{
		Version: 1, Cipher: "AES-256-GCM",
		Nonce: base64.StdEncoding.EncodeToString(nonce),
		Data:  base64.StdEncoding.EncodeToString(gcm.Seal(nil, nonce, plain, []byte(VaultFile))),
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(v.path, b, 0o600)
}

// key reads the vault key, creating it when create is set.
func (v *Vault) key(create bool) ([]byte, error) {
	b, err := os.ReadFile(v.keyPath)
	if errors.Is(err, fs.ErrNotExist) && create {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := atomicfile.WriteFile(v.keyPath, []byte(hex.EncodeToString(key)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("create the vault key: %w", err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the vault key %s: %w", v.keyPath, err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("the vault key %s is damaged", v.keyPath)
	}
	return key, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// masker replaces the credential values of a call in everything that
// leaves it: results, errors, stderr, task records.
type masker []resolvedCredential

// minMaskLen is the shortest value masked; shorter ones would mangle
// ordinary text and are no real secret.
const minMaskLen = 4

func (m masker) mask(s string) string {
	for _, c := range m {
		if len(c.Value) < minMaskLen {
			continue
		}
		// The value as is, and as it reads inside a JSON string.
		forms := []string{c.Value}
		if b, err := json.Marshal(c.Value); err == nil {
			if q := string(b[1 : len(b)-1]); q != c.Value {
				forms = append(forms, q)
			}
		}
		label := c.Env
		if label == "" {
			label = "credentials." + c.Spec.settingsName()
		}
		for _, f := range forms {
			if strings.Contains(s, f) {
				s = strings.ReplaceAll(s, f, "[redacted "+label+"]")
			}
		}
	}
	return s
}
