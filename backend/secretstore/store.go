// Package secretstore keeps TinyElf's small secrets (the OAuth tokens and
// client registrations of remote MCP servers) encrypted at rest: in the OS
// keyring (Secret Service, macOS Keychain, Windows Credential Manager,
// through github.com/zalando/go-keyring) when one answers, else in a file
// only the user can read whose entries are sealed with AES-256-GCM under a
// key kept in the keyring, or, with no keyring at all, in a 0600 key file
// beside it.
//
// Nothing here logs or prints a value; errors name keys, never contents.
package secretstore

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/zalando/go-keyring"

	"tinyelf/internal/atomicfile"
)

// ErrNotFound is returned by Get for a key that holds nothing.
var ErrNotFound = errors.New("no such secret")

// Service is the keyring service name TinyElf's entries are filed under.
const Service = "tinyelf"

// fileKeyName is the keyring entry that holds the file's key.
const fileKeyName = "secrets-file-key"

// The files of the fallback, inside the store's folder.
const (
	SecretsFile = "secrets.enc.json"
	KeyFile     = "secrets.key"
)

// Keyring is the part of an OS keyring the store uses; go-keyring's
// package functions satisfy it (SystemKeyring), tests pass a fake.
type Keyring interface {
	Set(service, user, password string) error
	Get(service, user string) (string, error)
	Delete(service, user string) error
}

// SystemKeyring is the OS keyring through go-keyring.
type SystemKeyring struct{}

// Set implements Keyring.
func (SystemKeyring) Set(service, user, password string) error {
	return keyring.Set(service, user, password)
}

// Get implements Keyring; a missing entry is keyring.ErrNotFound.
func (SystemKeyring) Get(service, user string) (string, error) { return keyring.Get(service, user) }

// Delete implements Keyring.
func (SystemKeyring) Delete(service, user string) error { return keyring.Delete(service, user) }

// Backend names where a store keeps its secrets.
type Backend string

// The backends, best first.
const (
	// BackendKeyring: each secret is an entry of the OS keyring.
	BackendKeyring Backend = "keyring"
	// BackendFileKeyringKey: an encrypted file whose key is in the keyring
	// (a keyring that refuses large entries).
	BackendFileKeyringKey Backend = "file, key in the keyring"
	// BackendFile: an encrypted file whose key is a 0600 file beside it
	// (no keyring answered).
	BackendFile Backend = "file, key in a 0600 file"
)

// Store is a small key-value store of secrets. It is safe for concurrent
// use within one process; processes sharing a folder see each other's
// writes on their next read.
type Store struct {
	dir     string
	keyring Keyring

	mu      sync.Mutex
	probed  bool
	hasRing bool // the keyring answered the probe
}

// Options configures Open.
type Options struct {
	// Keyring is the OS keyring (default SystemKeyring); NoKeyring turns it
	// off (the file with a 0600 key only).
	Keyring   Keyring
	NoKeyring bool
}

// Open returns the store whose fallback files live in dir (created 0700
// when first written). It touches neither the keyring nor the disk.
func Open(dir string, opts Options) *Store {
	k := opts.Keyring
	if k == nil {
		k = SystemKeyring{}
	}
	if opts.NoKeyring {
		k = nil
	}
	return &Store{dir: dir, keyring: k}
}

// ringOK reports whether the keyring answers, asking it once.
func (s *Store) ringOK() bool {
	if s.keyring == nil {
		return false
	}
	if !s.probed {
		s.probed = true
		_, err := s.keyring.Get(Service, fileKeyName)
		s.hasRing = err == nil || errors.Is(err, keyring.ErrNotFound)
	}
	return s.hasRing
}

// Backend reports where Set puts a small secret now.
func (s *Store) Backend() Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ringOK() {
		return BackendKeyring
	}
	return BackendFile
}

// Get returns the secret stored under key, or ErrNotFound.
func (s *Store) Get(key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ringOK() {
		v, err := s.keyring.Get(Service, key)
		if err == nil {
			b, derr := base64.StdEncoding.DecodeString(v)
			if derr != nil {
				return nil, fmt.Errorf("secret %s in the keyring is not TinyElf's: %w", key, derr)
			}
			return b, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) {
			return nil, fmt.Errorf("read secret %s from the keyring: %w", key, err)
		}
	}
	entries, err := s.readFile()
	if err != nil {
		return nil, err
	}
	sealed, ok := entries[key]
	if !ok {
		return nil, ErrNotFound
	}
	k, err := s.fileKey(false)
	if err != nil {
		return nil, err
	}
	return open(k, sealed, key)
}

// Set stores value under key, replacing what was there.
func (s *Store) Set(key string, value []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ringOK() {
		err := s.keyring.Set(Service, key, base64.StdEncoding.EncodeToString(value))
		if err == nil {
			return s.dropFromFile(key) // an older copy in the file must not come back
		}
		if !errors.Is(err, keyring.ErrSetDataTooBig) {
			return fmt.Errorf("save secret %s in the keyring: %w", key, err)
		}
	}
	k, err := s.fileKey(true)
	if err != nil {
		return err
	}
	entries, err := s.readFile()
	if err != nil {
		return err
	}
	sealed, err := seal(k, value, key)
	if err != nil {
		return err
	}
	entries[key] = sealed
	return s.writeFile(entries)
}

// Delete forgets key wherever it is; a missing key is not an error.
func (s *Store) Delete(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ringOK() {
		if err := s.keyring.Delete(Service, key); err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("delete secret %s from the keyring: %w", key, err)
		}
	}
	return s.dropFromFile(key)
}

func (s *Store) dropFromFile(key string) error {
	entries, err := s.readFile()
	if err != nil {
		return err
	}
	if _, ok := entries[key]; !ok {
		return nil
	}
	delete(entries, key)
	return s.writeFile(entries)
}

// fileKey returns the key of the secrets file: from the keyring when it
// answers, else from the 0600 key file; create makes one when there is
// none.
func (s *Store) fileKey(create bool) ([]byte, error) {
	if s.ringOK() {
		v, err := s.keyring.Get(Service, fileKeyName)
		if err == nil {
			if k, derr := base64.StdEncoding.DecodeString(v); derr == nil && len(k) == 32 {
				return k, nil
			}
		}
		if err == nil || errors.Is(err, keyring.ErrNotFound) {
			if !create {
				return nil, ErrNotFound
			}
			k := make([]byte, 32)
			if _, err := rand.Read(k); err != nil {
				return nil, fmt.Errorf("make the secrets file key: %w", err)
			}
			if err := s.keyring.Set(Service, fileKeyName, base64.StdEncoding.EncodeToString(k)); err == nil {
				return k, nil
			}
		}
	}
	path := filepath.Join(s.dir, KeyFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(b) == 32:
		return b, nil
	case err == nil:
		return nil, fmt.Errorf("the key file %s is damaged (%d bytes, want 32); delete it and sign in again", path, len(b))
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read the key file: %w", err)
	case !create:
		return nil, ErrNotFound
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("make the secrets file key: %w", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", s.dir, err)
	}
	if err := atomicfile.WriteFile(path, k, 0o600); err != nil {
		return nil, fmt.Errorf("write the key file: %w", err)
	}
	return k, nil
}

// readFile returns the sealed entries of the secrets file (none when it
// does not exist).
func (s *Store) readFile() (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(s.dir, SecretsFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the secrets file: %w", err)
	}
	var f struct {
		Entries map[string]string `json:"entries"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the secrets file %s is damaged: %w", filepath.Join(s.dir, SecretsFile), err)
	}
	if f.Entries == nil {
		f.Entries = map[string]string{}
	}
	return f.Entries, nil
}

func (s *Store) writeFile(entries map[string]string) error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", s.dir, err)
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, err := json.MarshalIndent(struct {
		Note    string            `json:"note"`
		Entries map[string]string `json:"entries"`
	}{"TinyElf's secrets, each sealed with AES-256-GCM; the key is in the OS keyring or in " + KeyFile, entries}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, SecretsFile), b, 0o600); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	return nil
}

// seal encrypts value, binding it to its key name (a sealed value moved to
// another key does not open).
func seal(key, value []byte, name string) (string, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, value, []byte(name))), nil
}

func open(key []byte, sealed, name string) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < gcm.NonceSize() {
		return nil, fmt.Errorf("secret %s in the secrets file is damaged", name)
	}
	out, err := gcm.Open(nil, b[:gcm.NonceSize()], b[gcm.NonceSize():], []byte(name))
	if err != nil {
		return nil, fmt.Errorf("secret %s does not open with the current key (the key was replaced?); sign in again", name)
	}
	return out, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
