package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/llm/llmtest"
	"tinyelf/backend/sessions"
)

// pngBytes stands for an image: the model side only sees bytes and a type.
var pngBytes = []byte("\x89PNG\r\n\x1a\nfake image bytes")

// sendInput starts a turn with in and waits for it to end.
func (h *harness) sendInput(id string, in Input) {
	h.t.Helper()
	if err := h.engine.SendInput(id, in); err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.engine.Wait(ctx, id); err != nil {
		h.t.Fatal(err)
	}
}

// attach stores content as a blob and describes it.
func (h *harness) attach(name, mime, kind string, content []byte) sessions.Attachment {
	h.t.Helper()
	id, err := h.store.Blobs().Put(content)
	if err != nil {
		h.t.Fatal(err)
	}
	return sessions.Attachment{ID: id, Name: name, MIME: mime, Size: int64(len(content)), Kind: kind}
}

func setImages(t *testing.T, h *harness, on bool) {
	t.Helper()
	if err := h.settings.Update(func(s *config.Settings) error { s.Providers[0].Images = &on; return nil }); err != nil {
		t.Fatal(err)
	}
}

func TestAttachmentsReachTheModel(t *testing.T) {
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t, kind, []llmtest.Turn{{Text: "a red dot"}, {Text: "still text"}})
			setImages(t, h, true)
			id := h.session(ModeDefault)
			img := h.attach("dot.png", "image/png", sessions.AttachImage, pngBytes)
			notes := h.attach("notes.txt", "text/plain", sessions.AttachText, []byte("buy milk"))
			big := sessions.Attachment{ID: sessions.BlobID([]byte("x")), Name: "big.log", MIME: "text/plain", Size: 9 << 20,
				Kind: sessions.AttachFile, Path: h.workspace + "/attachments/big.log"}
			h.sendInput(id, Input{Text: "what is this?", Attachments: []sessions.Attachment{img, notes, big}})

			req := h.srv.ChatRequests()[0]
			imgs := req.Images()
			if len(imgs) != 1 || imgs[0].MIME != "image/png" || !bytes.Equal(imgs[0].Data, pngBytes) {
				t.Fatalf("images sent = %+v, want the PNG", imgs)
			}
			mustContain(t, "request", requestText(req), "what is this?", `\u003cattachment name=\"notes.txt\"`, "buy milk",
				"attachments/big.log", "read it with the Read tool")
			users := logged[sessions.UserMessage](h, id, sessions.EventUserMessage)
			if len(users) != 1 || len(users[0].Attachments) != 3 {
				t.Fatalf("logged user messages = %+v, want one with three attachments", users)
			}
			if strings.Contains(string(mustJSONBytes(t, users[0])), "buy milk") {
				t.Error("the file's content is inside the event; want only its blob ID")
			}

			// A text-only model gets a note in the image's place, and the
			// conversation goes on.
			setImages(t, h, false)
			h.run(id, "and now?")
			req = h.srv.ChatRequests()[1]
			if n := len(req.Images()); n != 0 {
				t.Errorf("a text-only model was sent %d images", n)
			}
			mustContain(t, "request", requestText(req), "is not shown because test-model does not take images")
		})
	}
}

func TestRetryRunsTheLastRequestAgain(t *testing.T) {
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			down := llmtest.Turn{Status: 500, ErrorMessage: "overloaded"}
			h := newHarness(t, kind, []llmtest.Turn{down, down, down, {Text: "here it is"}})
			id := h.session(ModeDefault)
			if res := h.run(id, "hello"); res.Reason != EndError {
				t.Fatalf("first turn = %+v, want an error", res)
			}
			errs := logged[sessions.Error](h, id, sessions.EventError)
			if len(errs) != 1 || errs[0].Kind != "server" {
				t.Errorf("error events = %+v, want one of kind server", errs)
			}
			h.sendInput(id, Input{Resume: ResumeRetry})
			reqs := h.srv.ChatRequests()
			last := reqs[len(reqs)-1]
			if got := last.LastUserText(); got != "hello" {
				t.Errorf("retried request's last user text = %q, want hello", got)
			}
			if n := len(logged[sessions.UserMessage](h, id, sessions.EventUserMessage)); n != 1 {
				t.Errorf("%d user messages logged, want 1 (a retry adds none)", n)
			}
			starts := logged[sessions.TurnStart](h, id, sessions.EventTurnStart)
			if len(starts) != 2 || starts[1].Resume != ResumeRetry {
				t.Errorf("turn starts = %+v, want the second marked retry", starts)
			}
			answers := logged[sessions.AssistantMessage](h, id, sessions.EventAssistantMessage)
			if len(answers) != 1 || answers[0].Text != "here it is" {
				t.Errorf("answers = %+v", answers)
			}
		})
	}
}

func TestContinueAfterAnAnswer(t *testing.T) {
	for _, kind := range wireFormats {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t, kind, []llmtest.Turn{{Text: "part one"}, {Text: "part two"}})
			id := h.session(ModeDefault)
			h.run(id, "write a long story")
			h.sendInput(id, Input{Resume: ResumeContinue})
			req := h.srv.ChatRequests()[1]
			if got := req.LastUserText(); got != continueNote {
				t.Errorf("continued request ends with %q, want the continue note", got)
			}
			mustContain(t, "request", requestText(req), "write a long story", "part one")
			if err := h.engine.SendInput(id, Input{Resume: "sideways"}); err == nil {
				t.Error("an unknown resume kind was accepted")
			}
		})
	}
}

func TestModelSwitchTakesEffectNextTurn(t *testing.T) {
	h := newHarness(t, "openai", []llmtest.Turn{{Text: "one"}, {Text: "two"}})
	id := h.session(ModeDefault)
	h.run(id, "first")
	if _, err := h.store.Append(context.Background(), id, sessions.NewEvent(sessions.EventModelChanged, sessions.ModelChanged{Provider: "fake", Model: "other-model"})); err != nil {
		t.Fatal(err)
	}
	h.run(id, "second")
	reqs := h.srv.ChatRequests()
	if got := reqs[0].Body["model"]; got != "test-model" {
		t.Errorf("first request's model = %v", got)
	}
	if got := reqs[1].Body["model"]; got != "other-model" {
		t.Errorf("request after the switch used %v, want other-model", got)
	}
}

func mustJSONBytes(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
