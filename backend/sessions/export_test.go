package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tinyelf/backend/version"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// richSession makes a session that uses every kind of UI item.
func richSession(t *testing.T, s *Store) Session {
	t.Helper()
	ctx := context.Background()
	sess := mustCreate(t, s, SessionCreated{Workspace: "/home/u/parser", Agent: "coder", Mode: "default", Provider: "openai", Model: "gpt-test"})
	mustAppend(t, s, sess.ID, conversation("Fix the failing parser test\nIt panics on empty input.", "call_1")...)
	mustAppend(t, s, sess.ID,
		NewEvent(EventModeChanged, ModeChanged{Mode: "acceptEdits"}),
		NewEvent(EventModelChanged, ModelChanged{Provider: "anthropic", Model: "claude-test"}),
		NewEvent(EventUserMessage, UserMessage{Text: "Show me the fence handling", Attachments: []Attachment{
			{ID: mustBlob(t, s, []byte("fake png")), Name: "screen.png", MIME: "image/png", Size: 8, Kind: AttachImage},
		}}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "Reading it.", ToolCalls: []ToolCallRecord{{ID: "call_2", Name: "Read", Arguments: `{"path":"md.go"}`}}}),
		NewEvent(EventToolIntent, ToolIntent{CallID: "call_2", Name: "Read", Arguments: `{"path":"md.go"}`}),
		NewEvent(EventApprovalAnswered, ApprovalAnswered{CallID: "call_2", Decision: "allow_once", By: "rule", Rule: "Read"}),
		NewEvent(EventToolResult, ToolResult{CallID: "call_2", Name: "Read", Content: "const fence = \"```\"\n", Truncated: true}),
		NewEvent(EventAssistantMessage, AssistantMessage{Text: "It uses three backticks", Partial: true}),
		NewEvent(EventError, Error{Message: "stream cut\nby the server", Kind: "stream_cut"}),
		NewEvent(EventCompaction, Compaction{Summary: "We fixed the parser.\nThen looked at md.go.", UpToSeq: 20, TokensBefore: 12000, TokensAfter: 400}),
		NewEvent(EventUsage, Usage{InputTokens: 10, OutputTokens: 5, CacheWriteTokens: 7, CostUSD: 0.5}),
	)
	if err := s.Rename(ctx, sess.ID, "Parser fixes"); err != nil {
		t.Fatal(err)
	}
	return mustGet(t, s, sess.ID)
}

func TestExportMarkdownGolden(t *testing.T) {
	t.Parallel()
	s := openTestStore(t, WithClock(newTestClock().Now))
	sess := richSession(t, s)
	var buf bytes.Buffer
	if err := s.ExportMarkdown(context.Background(), sess.ID, &buf); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(buf.String(), sess.ID, "SESSION_ID")
	golden := filepath.Join("testdata", "export.golden.md")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Markdown export differs from %s (run with -update if intended)\n--- got ---\n%s", golden, got)
	}
}

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := openTestStore(t, WithClock(newTestClock().Now))
	sess := richSession(t, src)
	if err := src.Delete(ctx, sess.ID); err != nil { // deletion travels too
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := src.ExportJSON(ctx, sess.ID, &buf); err != nil {
		t.Fatal(err)
	}
	var exp Export
	if err := json.Unmarshal(buf.Bytes(), &exp); err != nil {
		t.Fatalf("export is not JSON: %v", err)
	}
	if exp.Format != ExportFormat || exp.Version != ExportVersion || exp.Session.ID != sess.ID || len(exp.Events) != int(exp.Session.LastSeq) {
		t.Fatalf("export header: %+v with %d events", exp.Session, len(exp.Events))
	}
	if exp.TinyElf != version.Version() {
		t.Errorf("the export says TinyElf %q wrote it, want %q", exp.TinyElf, version.Version())
	}

	srcEvents, _ := readEvents(ctx, src.r, sess.ID, 0)
	srcUI, _ := src.UIMessages(ctx, sess.ID)
	srcModel, _ := src.ModelMessages(ctx, sess.ID)
	srcSess := mustGet(t, src, sess.ID)

	check := func(t *testing.T, dst *Store, wantSameID bool) {
		imported, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if (imported.ID == sess.ID) != wantSameID {
			t.Errorf("imported ID %s, exported %s, want same: %v", imported.ID, sess.ID, wantSameID)
		}
		evs, _ := readEvents(ctx, dst.r, imported.ID, 0)
		for i := range evs {
			if evs[i].SessionID != imported.ID {
				t.Fatalf("event %d in session %s", i, evs[i].SessionID)
			}
			evs[i].SessionID = sess.ID
		}
		if !reflect.DeepEqual(evs, srcEvents) {
			t.Errorf("events differ after import:\n%s\n%s", mustJSON(t, evs), mustJSON(t, srcEvents))
		}
		got := mustGet(t, dst, imported.ID)
		got.ID = sess.ID
		if !reflect.DeepEqual(got, srcSess) {
			t.Errorf("session differs:\n%+v\n%+v", got, srcSess)
		}
		ui, _ := dst.UIMessages(ctx, imported.ID)
		model, _ := dst.ModelMessages(ctx, imported.ID)
		if !reflect.DeepEqual(ui, srcUI) || !reflect.DeepEqual(model, srcModel) {
			t.Error("histories differ after import")
		}
		checkRebuildMatches(t, dst)
	}
	t.Run("into another store keeps the ID", func(t *testing.T) { check(t, openTestStore(t), true) })
	t.Run("into the same store gets a new ID", func(t *testing.T) { check(t, src, false) })
}

func TestImportRejectsBadExports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTestStore(t)
	created := NewEvent(EventSessionCreated, SessionCreated{Workspace: "/w", Mode: "default"})
	created.Seq = 1
	user := NewEvent(EventUserMessage, UserMessage{Text: "hi"})
	user.Seq = 2
	badJSON := Event{Seq: 2, Type: EventUserMessage, Data: json.RawMessage(`{"text":1}`)}
	mk := func(e Export) string {
		b, _ := json.Marshal(e)
		return string(b)
	}
	tests := []struct {
		name, in string
	}{
		{"not JSON", "# a markdown export"},
		{"wrong format", mk(Export{Format: "other", Version: 1, Events: []Event{created}})},
		{"newer version", mk(Export{Format: ExportFormat, Version: ExportVersion + 1, Events: []Event{created}})},
		{"blob not matching its ID", mk(Export{Format: ExportFormat, Version: 2, Events: []Event{created, user}, Blobs: map[string][]byte{BlobID([]byte("a")): []byte("b")}})},
		{"no events", mk(Export{Format: ExportFormat, Version: 1})},
		{"gap in seqs", mk(Export{Format: ExportFormat, Version: 1, Events: []Event{created, {Seq: 3, Type: EventUserMessage, Data: user.Data}}})},
		{"does not start with session.created", mk(Export{Format: ExportFormat, Version: 1, Events: []Event{{Seq: 1, Type: EventUserMessage, Data: user.Data}}})},
		{"bad payload", mk(Export{Format: ExportFormat, Version: 1, Events: []Event{created, badJSON}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Import(ctx, strings.NewReader(tt.in)); err == nil {
				t.Fatal("Import succeeded")
			}
		})
	}
	if got, _ := s.List(ctx, ListOptions{Deleted: IncludeDeleted}); len(got) != 0 {
		t.Errorf("a failed import left %d sessions", len(got))
	}
	var n int
	s.r.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n)
	if n != 0 {
		t.Errorf("a failed import left %d events", n)
	}
	if _, err := s.Import(ctx, strings.NewReader(mk(Export{Format: ExportFormat, Version: 1, Events: []Event{created, user}}))); err != nil {
		t.Errorf("a minimal export does not import: %v", err)
	}
	if err := s.ExportJSON(ctx, "missing", &bytes.Buffer{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ExportJSON(missing) = %v", err)
	}
	if err := s.ExportMarkdown(ctx, "missing", &bytes.Buffer{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("ExportMarkdown(missing) = %v", err)
	}
}

func TestFenced(t *testing.T) {
	t.Parallel()
	if got := fenced("", "a ``` b ```` c"); !strings.HasPrefix(got, "`````\n") || !strings.HasSuffix(got, "\n`````\n") {
		t.Errorf("fenced = %q", got)
	}
}

// mustBlob stores data in s's blobs and returns its ID.
func mustBlob(t *testing.T, s *Store, data []byte) string {
	t.Helper()
	id, err := s.Blobs().Put(data)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestExportCarriesAttachments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := openTestStore(t)
	sess := mustCreate(t, src, SessionCreated{Workspace: "/w", Mode: "default"})
	pdf, text := []byte("%PDF-1.4 fake"), []byte("the PDF's text")
	att := Attachment{ID: mustBlob(t, src, pdf), TextID: mustBlob(t, src, text), Name: "a.pdf", MIME: "application/pdf", Size: int64(len(pdf)), Kind: AttachText}
	mustAppend(t, src, sess.ID, NewEvent(EventUserMessage, UserMessage{Text: "read this", Attachments: []Attachment{att}}))
	var buf bytes.Buffer
	if err := src.ExportJSON(ctx, sess.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "the PDF's text") {
		t.Error("the blob's bytes are in the export as plain text; want them base64 in blobs")
	}
	dst := openTestStore(t)
	imported, err := dst.Import(ctx, bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][]byte{att.ID: pdf, att.TextID: text} {
		got, err := dst.Blobs().Get(id)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("blob %s after import = %q, %v; want %q", id, got, err, want)
		}
	}
	model, err := dst.ModelMessages(ctx, imported.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(model) != 1 || !reflect.DeepEqual(model[0].Attachments, []Attachment{att}) {
		t.Errorf("model history after import = %+v, want the message with its attachment", model)
	}
	ui, _ := dst.UIMessages(ctx, imported.ID)
	if len(ui) != 1 || len(ui[0].Attachments) != 1 || ui[0].Attachments[0].Name != "a.pdf" {
		t.Errorf("UI history after import = %+v, want the attachment shown", ui)
	}
}

func TestImportReadsVersion1(t *testing.T) {
	t.Parallel()
	// A version 1 export as TinyElf 0.1 wrote it: no blobs field.
	const v1 = `{"format":"tinyelf.session","version":1,"session":{"id":"old1"},"events":[
		{"seq":1,"type":"session.created","time":"2025-01-01T00:00:00Z","data":{"workspace":"/w","mode":"default"}},
		{"seq":2,"type":"user.message","time":"2025-01-01T00:00:01Z","data":{"text":"hello"}}]}`
	s := openTestStore(t)
	sess, err := s.Import(context.Background(), strings.NewReader(v1))
	if err != nil {
		t.Fatalf("Import(v1): %v", err)
	}
	if sess.ID != "old1" || sess.Title != "hello" {
		t.Errorf("imported %+v", sess)
	}
}

func TestModelChangedProjects(t *testing.T) {
	t.Parallel()
	s := openTestStore(t)
	sess := mustCreate(t, s, SessionCreated{Workspace: "/w", Mode: "default", Provider: "a", Model: "m1"})
	mustAppend(t, s, sess.ID, NewEvent(EventModelChanged, ModelChanged{Provider: "b", Model: "m2"}))
	got := mustGet(t, s, sess.ID)
	if got.Provider != "b" || got.Model != "m2" {
		t.Errorf("after model.changed: provider %q model %q, want b m2", got.Provider, got.Model)
	}
	ui, _ := s.UIMessages(context.Background(), sess.ID)
	if len(ui) != 1 || ui[0].Kind != UIModelChange || ui[0].Model != "m2" || ui[0].Provider != "b" {
		t.Errorf("UI history = %+v, want one model item", ui)
	}
	checkRebuildMatches(t, s)
}
