package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeRefusesRemoteAddresses: without --allow-remote, an address
// other machines can reach is a usage error, before anything starts.
func TestServeRefusesRemoteAddresses(t *testing.T) {
	cliEnv(t)
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "192.0.2.2:0", "example.com:8080"} {
		t.Run(addr, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "serve", "--addr", addr)
			if code != exitUsage || !strings.Contains(stderr, "refusing to listen on "+addr) || !strings.Contains(stderr, "--allow-remote") {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
		})
	}
}

// startServeCLI starts `tinyelf serve` with args and returns its URL and a
// function that interrupts it and returns its exit code.
func startServeCLI(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, append([]string{"serve"}, args...), pw, io.Discard, Options{}); pw.Close() }()
	sc := bufio.NewScanner(pr)
	var url string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "http://127.0.0.1:") {
			url = sc.Text()
			break
		}
	}
	go io.Copy(io.Discard, pr)
	if url == "" {
		cancel()
		t.Fatal("serve printed no URL")
	}
	return url, func() int {
		cancel()
		select {
		case code := <-done:
			return code
		case <-time.After(10 * time.Second):
			t.Fatal("serve did not stop")
			return 0
		}
	}
}

func TestServeCommand(t *testing.T) {
	cliEnv(t)
	url, stop := startServeCLI(t)
	base, token, _ := strings.Cut(url, "/?token=")
	resp, err := http.Get(base + "/api/version")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", base+"/api/call/State", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"hasProvider":false`) {
		t.Errorf("State: %d %s", resp.StatusCode, b)
	}
	if code := stop(); code != 0 {
		t.Errorf("serve exited %d", code)
	}
}

// TestServeAllowRemoteNeedsTheTokenEverywhere serves with --allow-remote
// (on loopback, as tests must): the page itself needs the token too.
func TestServeAllowRemoteNeedsTheTokenEverywhere(t *testing.T) {
	cliEnv(t)
	url, stop := startServeCLI(t, "--allow-remote", "--addr", "127.0.0.1:0")
	defer stop()
	base, _, _ := strings.Cut(url, "/?token=")
	for _, u := range []string{base + "/", url} {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: 200, false: 401}[u == url]; resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", u, resp.StatusCode, want)
		}
	}
}
