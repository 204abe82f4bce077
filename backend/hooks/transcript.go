package hooks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"tinyelf/internal/atomicfile"
)

// TranscriptMessage is one message of a session for its transcript: a
// user or assistant message, or a tool result (Role "tool").
type TranscriptMessage struct {
	Role       string
	Text       string
	ToolCalls  []TranscriptToolCall
	ToolCallID string
	IsError    bool
	Model      string
}

// TranscriptToolCall is a tool call of an assistant message; Input is its
// arguments as the model wrote them (a JSON object, or text that is not).
type TranscriptToolCall struct {
	ID    string
	Name  string
	Input string
}

// transcriptLine is one line of a Claude Code transcript.
type transcriptLine struct {
	Type       string         `json:"type"`
	UUID       string         `json:"uuid"`
	ParentUUID *string        `json:"parentUuid"`
	SessionID  string         `json:"sessionId"`
	Cwd        string         `json:"cwd"`
	Message    transcriptBody `json:"message"`
}

type transcriptBody struct {
	Role    string `json:"role"`
	Model   string `json:"model,omitempty"`
	Content any    `json:"content"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// WriteTranscript writes a session's messages to path as JSONL in Claude
// Code's transcript shape (one {"type": "user"|"assistant", "message":
// {"role", "content"}} object a line; assistant content is a list of
// "text" and "tool_use" blocks, a tool result a user line holding a
// "tool_result" block), so hook scripts that read the last assistant
// message or the tools used read TinyElf's sessions unchanged. The file is
// replaced in one step (a temporary file renamed over it) with mode 0600.
func WriteTranscript(path, sessionID, cwd string, msgs []TranscriptMessage) error {
	err := atomicfile.Write(path, 0o600, func(w io.Writer) error {
		return writeLines(w, sessionID, cwd, msgs, 0)
	})
	if err != nil {
		return fmt.Errorf("write transcript: %w", err)
	}
	return nil
}

// AppendTranscript adds messages to a transcript WriteTranscript (or
// AppendTranscript) wrote with written lines so far, as Claude Code's
// transcripts grow: what a compaction replaced stays, its summary follows.
func AppendTranscript(path, sessionID, cwd string, msgs []TranscriptMessage, written int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("append to transcript: %w", err)
	}
	if err := writeLines(f, sessionID, cwd, msgs, written); err != nil {
		f.Close()
		return fmt.Errorf("append to transcript: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to transcript: %w", err)
	}
	return nil
}

// writeLines writes msgs as transcript lines numbered after the first
// `before`, each pointing at the one before it.
func writeLines(f io.Writer, sessionID, cwd string, msgs []TranscriptMessage, before int) error {
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var parent *string
	if before > 0 {
		id := fmt.Sprintf("%s-%d", sessionID, before)
		parent = &id
	}
	for i, m := range msgs {
		line := transcriptLine{UUID: fmt.Sprintf("%s-%d", sessionID, before+i+1), ParentUUID: parent, SessionID: sessionID, Cwd: cwd}
		switch m.Role {
		case "assistant":
			blocks := []contentBlock{}
			if m.Text != "" {
				blocks = append(blocks, contentBlock{Type: "text", Text: m.Text})
			}
			for _, c := range m.ToolCalls {
				input := json.RawMessage(c.Input)
				if !json.Valid(input) || len(input) == 0 || input[0] != '{' {
					input, _ = json.Marshal(map[string]string{"_raw": c.Input})
				}
				blocks = append(blocks, contentBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
			}
			line.Type, line.Message = "assistant", transcriptBody{Role: "assistant", Model: m.Model, Content: blocks}
		case "tool":
			text := m.Text
			line.Type, line.Message = "user", transcriptBody{Role: "user", Content: []contentBlock{
				{Type: "tool_result", ToolUseID: m.ToolCallID, Content: &text, IsError: m.IsError},
			}}
		default:
			line.Type, line.Message = "user", transcriptBody{Role: "user", Content: m.Text}
		}
		if err := enc.Encode(line); err != nil {
			return err
		}
		id := line.UUID
		parent = &id
	}
	return w.Flush()
}
