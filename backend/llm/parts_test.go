package llm_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"tinyelf/backend/llm"
	"tinyelf/backend/llm/llmtest"
)

// pixel is a 1×1 PNG.
var pixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// withParts is a user message carrying an image and a file's text.
var withParts = llm.Request{Messages: []llm.Message{
	{Role: llm.RoleUser, Content: "What is in these?", Parts: []llm.Part{
		{Kind: llm.PartImage, Name: "dot.png", MIME: "image/png", Data: pixel},
		{Kind: llm.PartText, Name: "notes.txt", Text: "<attachment name=\"notes.txt\">\nbuy milk\n</attachment>"},
		{Kind: llm.PartText, Name: "empty.txt"}, // an empty text part is left out
	}},
}}

func TestPartsInBothWireFormats(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Echo: true})
			p := newProvider(t, w, srv)
			resp, _, err := stream(t, p, withParts)
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			req := srv.ChatRequests()[0]
			imgs := req.Images()
			if len(imgs) != 1 || imgs[0].MIME != "image/png" || !bytes.Equal(imgs[0].Data, pixel) {
				t.Fatalf("images recorded = %+v, want the PNG inline", imgs)
			}
			content := req.Messages()[len(req.Messages())-1]["content"].([]any)
			if len(content) != 3 {
				t.Fatalf("user content has %d parts, want text, image, file text: %v", len(content), content)
			}
			first, _ := content[0].(map[string]any)
			if first["type"] != "text" || first["text"] != "What is in these?" {
				t.Errorf("first part = %v, want the message text", first)
			}
			if !strings.Contains(resp.Text, "[image image/png, ") || !strings.Contains(resp.Text, "buy milk") {
				t.Errorf("echo = %q, want the image and the file's text seen by the model", resp.Text)
			}
		})
	}
}

func TestAcceptsImages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model string
		want  bool
	}{
		{"gpt-4o", true}, {"gpt-4o-mini", true}, {"openai/gpt-4.1", true}, {"gpt-5-mini", true},
		{"o3", true}, {"o3-mini", false}, {"o1-mini", false}, {"o4-mini", true},
		{"gpt-3.5-turbo", false}, {"gpt-4-0613", false}, {"gpt-oss:20b", false},
		{"claude-sonnet-4-5", true}, {"claude-3-5-haiku-latest", true}, {"claude-2.1", false},
		{"models/gemini-2.5-pro", true}, {"llava:13b", true}, {"llama3.2-vision:11b", true},
		{"qwen2.5vl:7b", true}, {"llama3.1:8b", false}, {"deepseek-chat", false},
		{"test-model", false}, {"", false}, {"Qwen/Qwen2.5-VL-72B-Instruct", true},
	} {
		if got := llm.AcceptsImages(c.model); got != c.want {
			t.Errorf("AcceptsImages(%q) = %v, want %v", c.model, got, c.want)
		}
	}
}

func TestErrorKind(t *testing.T) {
	t.Parallel()
	// A port nothing listens on: take one, then close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()

	statuses := []struct {
		status int
		msg    string
		want   string
	}{
		{http.StatusUnauthorized, "bad key", llm.KindAuth},
		{http.StatusForbidden, "no access", llm.KindAuth},
		{http.StatusNotFound, "no such model", llm.KindNotFound},
		{http.StatusTooManyRequests, "slow down", llm.KindRateLimit},
		{http.StatusBadRequest, "This model's maximum context length is 8192 tokens", llm.KindTooLarge},
		{http.StatusBadRequest, "messages: bad role", llm.KindBadRequest},
		{http.StatusInternalServerError, "boom", llm.KindServer},
	}
	for _, w := range wires {
		t.Run(w.name+"/refused", func(t *testing.T) {
			t.Parallel()
			cfg := w.cfg(closed)
			p, err := llm.New(cfg, llm.WithRetryPolicy(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = stream(t, p, hello)
			if got := llm.ErrorKind(err); got != llm.KindRefused {
				t.Errorf("ErrorKind(%v) = %q, want %q", err, got, llm.KindRefused)
			}
		})
		for _, c := range statuses {
			t.Run(fmt.Sprintf("%s/%d", w.name, c.status), func(t *testing.T) {
				t.Parallel()
				turn := llmtest.Turn{Status: c.status, ErrorMessage: c.msg}
				srv := llmtest.NewServer(t, turn, turn, turn, turn) // enough for the retries
				_, _, err := stream(t, newProvider(t, w, srv), hello)
				if got := llm.ErrorKind(err); got != c.want {
					t.Errorf("ErrorKind(%v) = %q, want %q", err, got, c.want)
				}
			})
		}
		t.Run(w.name+"/cut", func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Turn{Text: "one two three", CutAfter: 2})
			_, _, err := stream(t, newProvider(t, w, srv), hello)
			if got := llm.ErrorKind(err); got != llm.KindStreamCut {
				t.Errorf("ErrorKind(%v) = %q, want %q", err, got, llm.KindStreamCut)
			}
		})
	}
	if got := llm.ErrorKind(errors.New("odd")); got != llm.KindProvider {
		t.Errorf("ErrorKind(other) = %q, want %q", got, llm.KindProvider)
	}
}
