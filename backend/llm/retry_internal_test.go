package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"HTTP date", map[string]string{"Retry-After": now.Add(7 * time.Second).Format(http.TimeFormat)}, 7 * time.Second},
		{"HTTP date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "150"}, 150 * time.Millisecond},
		{"zero", map[string]string{"Retry-After": "0"}, 0},
		{"negative", map[string]string{"Retry-After": "-3"}, 0},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"garbage milliseconds fall back", map[string]string{"Retry-After": "1", "Retry-After-Ms": "x"}, time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tc.want {
				t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	p := RetryPolicy{MaxAttempts: 10, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for n := 1; n <= 8; n++ {
		full := min(p.BaseDelay<<(n-1), p.MaxDelay)
		for range 50 {
			d := p.backoff(n)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", n, d, full/2, full)
			}
		}
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	t.Parallel()
	got := RetryPolicy{}.withDefaults()
	if got != DefaultRetryPolicy() {
		t.Errorf("zero policy = %+v, want the default %+v", got, DefaultRetryPolicy())
	}
	got = RetryPolicy{MaxAttempts: 1}.withDefaults()
	if got.MaxAttempts != 1 {
		t.Errorf("MaxAttempts = %d, want 1 kept", got.MaxAttempts)
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
		status           int
	}{
		{"openai", `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, "Incorrect API key", 401},
		{"anthropic", `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, "model: claude-x", 404},
		{"ollama native", `{"error":"model \"llama9\" not found, try pulling it first"}`, `model "llama9" not found, try pulling it first`, 404},
		{"gemini list", `[{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}]`, "API key not valid", 400},
		{"top-level message", `{"message":"Unauthorized"}`, "Unauthorized", 401},
		{"detail", `{"detail":"Not Found"}`, "Not Found", 404},
		{"plain text", "Bad Gateway\n", "Bad Gateway", 502},
		{"empty", "", "Service Unavailable", 503},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := errorMessage([]byte(tc.body), tc.status); got != tc.want {
				t.Errorf("errorMessage(%q) = %q, want %q", tc.body, got, tc.want)
			}
		})
	}
}
