package secretstore

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestSecretServiceKeyring stores a secret in a real Secret Service: a
// private D-Bus session bus with gnome-keyring-daemon on it, an unlocked
// login keyring in a temporary folder. Nothing reaches the disk outside
// the keyring.
func TestSecretServiceKeyring(t *testing.T) {
	for _, bin := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (Debian: dbus, gnome-keyring; scripts/test.sh installs them): the keyring path is untested here", bin)
		}
	}
	tmp := t.TempDir()
	data, runtime := filepath.Join(tmp, "data"), filepath.Join(tmp, "run")
	for _, d := range []string{filepath.Join(data, "keyrings"), runtime} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(data, "keyrings", "default"), []byte("login"), 0o600); err != nil {
		t.Fatal(err)
	}
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1")
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bus.Process.Kill(); _ = bus.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", strings.TrimSpace(line))
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	daemon := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	daemon.Stdin = strings.NewReader("test-password")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = daemon.Process.Kill(); _ = daemon.Wait() })

	// Wait for the Secret Service to answer (it registers on the bus
	// shortly after starting).
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := SystemKeyring{}.Get(Service, "probe")
		if errors.Is(err, keyring.ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Secret Service did not answer: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	dir := filepath.Join(tmp, "store")
	s := Open(dir, Options{})
	if got := s.Backend(); got != BackendKeyring {
		t.Fatalf("Backend() = %q with a Secret Service running", got)
	}
	if err := s.Set("mcp/linear", secret); err != nil {
		t.Fatal(err)
	}
	if got, err := Open(dir, Options{}).Get("mcp/linear"); err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, SecretsFile)); err == nil {
		t.Error("a secrets file was written although the keyring took the secret")
	}
	if err := s.Delete("mcp/linear"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("mcp/linear"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
}
