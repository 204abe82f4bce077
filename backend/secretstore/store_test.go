package secretstore

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/zalando/go-keyring"
)

// fakeKeyring is an in-memory keyring that records what it holds; limit,
// when set, refuses larger entries the way Windows' Credential Manager
// does; broken makes every call fail as a missing Secret Service does.
type fakeKeyring struct {
	mu      sync.Mutex
	entries map[string]string
	limit   int
	broken  bool
}

func newFakeKeyring() *fakeKeyring { return &fakeKeyring{entries: map[string]string{}} }

func (f *fakeKeyring) Set(service, user, password string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken {
		return errors.New("org.freedesktop.secrets was not provided by any .service files")
	}
	if f.limit > 0 && len(password) > f.limit {
		return keyring.ErrSetDataTooBig
	}
	f.entries[service+"/"+user] = password
	return nil
}

func (f *fakeKeyring) Get(service, user string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.broken {
		return "", errors.New("org.freedesktop.secrets was not provided by any .service files")
	}
	v, ok := f.entries[service+"/"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return v, nil
}

func (f *fakeKeyring) Delete(service, user string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.entries[service+"/"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.entries, service+"/"+user)
	return nil
}

// secret is a value whose plaintext must never reach the disk.
var secret = []byte(`{"access_token":"at-very-secret-0123456789","refresh_token":"rt-also-secret-9876543210"}`)

func TestStoreBackends(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		opts     func() Options
		backend  Backend
		keyFile  bool // a 0600 key file beside the secrets
		fileUsed bool // the secret is in the encrypted file
	}{
		{"no keyring: file with a 0600 key", func() Options { return Options{NoKeyring: true} }, BackendFile, true, true},
		{"keyring that does not answer", func() Options { k := newFakeKeyring(); k.broken = true; return Options{Keyring: k} }, BackendFile, true, true},
		{"keyring", func() Options { return Options{Keyring: newFakeKeyring()} }, BackendKeyring, false, false},
		{"keyring that refuses large entries: file with the key in the keyring", func() Options {
			k := newFakeKeyring()
			k.limit = 64
			return Options{Keyring: k}
		}, BackendKeyring, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "secrets")
			s := Open(dir, c.opts())
			if got := s.Backend(); got != c.backend {
				t.Errorf("Backend() = %q, want %q", got, c.backend)
			}
			if _, err := s.Get("mcp/linear"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get on an empty store: %v, want ErrNotFound", err)
			}
			if err := s.Set("mcp/linear", secret); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get("mcp/linear")
			if err != nil || !bytes.Equal(got, secret) {
				t.Fatalf("Get = %q, %v", got, err)
			}
			file := filepath.Join(dir, SecretsFile)
			b, ferr := os.ReadFile(file)
			if c.fileUsed {
				if ferr != nil {
					t.Fatalf("the secrets file: %v", ferr)
				}
				if bytes.Contains(b, []byte("at-very-secret")) || bytes.Contains(b, []byte("rt-also-secret")) {
					t.Errorf("the secrets file holds the token in the clear:\n%s", b)
				}
				checkMode(t, file)
				checkMode(t, dir)
			} else if ferr == nil {
				t.Errorf("the keyring holds the secret, yet a file was written: %s", b)
			}
			if _, err := os.Stat(filepath.Join(dir, KeyFile)); (err == nil) != c.keyFile {
				t.Errorf("key file exists = %v, want %v", err == nil, c.keyFile)
			}
			if c.keyFile {
				checkMode(t, filepath.Join(dir, KeyFile))
			}
			// A second store on the same folder (the next start) reads it.
			if got, err := Open(dir, c.opts()).Get("mcp/linear"); c.backend == BackendFile && (err != nil || !bytes.Equal(got, secret)) {
				t.Errorf("a new store reads %q, %v", got, err)
			}
			if err := s.Delete("mcp/linear"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get("mcp/linear"); !errors.Is(err, ErrNotFound) {
				t.Errorf("Get after Delete: %v, want ErrNotFound", err)
			}
			if err := s.Delete("mcp/linear"); err != nil {
				t.Errorf("deleting a missing key: %v", err)
			}
		})
	}
}

func checkMode(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("%s has mode %v: others can read it", path, perm)
	}
}

// TestSealedValueStaysWithItsKey: a sealed value copied under another key
// does not open, and a damaged file says so rather than returning garbage.
func TestSealedValueStaysWithItsKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := Open(dir, Options{NoKeyring: true})
	if err := s.Set("a", []byte("one")); err != nil {
		t.Fatal(err)
	}
	entries, err := s.readFile()
	if err != nil {
		t.Fatal(err)
	}
	entries["b"] = entries["a"]
	if err := s.writeFile(entries); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("b"); err == nil {
		t.Error("a value moved to another key opened")
	}
	if err := os.WriteFile(filepath.Join(dir, SecretsFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("a"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Get on a damaged file: %v, want an error saying so", err)
	}
}
