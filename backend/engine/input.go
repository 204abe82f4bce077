package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"tinyelf/backend/config"
	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
)

// Resume kinds: a turn that starts without a new user message.
const (
	// ResumeRetry runs the session's last request again after an error.
	ResumeRetry = "retry"
	// ResumeContinue lets the agent go on after the user stopped it.
	ResumeContinue = "continue"
)

// Input is what starts a turn: the user's text and the files attached to
// it, or, with Resume set, nothing new (the turn works on the history as
// it is).
type Input struct {
	Text        string
	Attachments []sessions.Attachment
	// Resume is "", ResumeRetry or ResumeContinue (ResumeApproval is
	// Answer's).
	Resume string
	// Options are what a typed slash command asks of the turn.
	Options TurnOptions

	// started are the turn's user.message and turn.start, when they were
	// logged with the session's creation (a subagent's first turn).
	started []sessions.Event
	// revive is the answer that takes up a turn an earlier run left
	// waiting for it (Resume is ResumeApproval).
	revive *revival
}

// sessionCreatorWith is implemented by a SessionLog that can create a
// session and log its first events in one transaction (StoreLog does).
type sessionCreatorWith interface {
	CreateSessionWith(ctx context.Context, c sessions.SessionCreated, first ...sessions.Event) (string, []sessions.Event, error)
}

// SendInput starts a turn with in and returns at once, like Send; it fails
// with ErrBusy while a turn runs.
func (e *Engine) SendInput(sessionID string, in Input) error {
	switch in.Resume {
	case "", ResumeRetry, ResumeContinue:
	default:
		return fmt.Errorf("unknown resume kind %q", in.Resume)
	}
	s, run, ctx, err := e.begin(sessionID)
	if err != nil {
		return err
	}
	go func() { e.finish(s, run, e.runInput(ctx, s, in, in.Options)) }()
	return nil
}

// userMessageFinder is implemented by a SessionLog that can name the last
// user message (StoreLog does); a resumed turn keeps that message verbatim
// when it compacts.
type userMessageFinder interface {
	LastUserMessage(ctx context.Context, sessionID string) (string, int64, error)
}

// lastUserMessage returns the text and seq of the session's last user
// message, or "" and the log's last seq when the log cannot say.
func (e *Engine) lastUserMessage(ctx context.Context, sessionID string) (string, int64) {
	if f, ok := e.opts.Log.(userMessageFinder); ok {
		if text, seq, err := f.LastUserMessage(ctx, sessionID); err == nil && seq > 0 {
			return text, seq
		}
	}
	seq, _ := e.opts.Log.LastSeq(ctx, sessionID)
	return "", seq + 1
}

// continueNote is what a resumed turn adds (to the request only) when the
// history ends with the model's own answer: both APIs need the user to
// speak last, and the model needs to know it is to go on.
const continueNote = "Continue from where you stopped. Do not repeat what you already wrote."

// continueNudge ends the messages with continueNote when they end with an
// assistant answer that made no tool calls (a stopped or cut-off answer).
func continueNudge(msgs []llm.Message) []llm.Message {
	if n := len(msgs); n > 0 && msgs[n-1].Role == llm.RoleAssistant && len(msgs[n-1].ToolCalls) == 0 {
		return append(msgs[:n:n], llm.Message{Role: llm.RoleUser, Content: continueNote})
	}
	return msgs
}

// AcceptsImages reports whether the provider's model takes image content:
// the provider's own setting (Images) when it has one, else what TinyElf
// knows of the model (llm.AcceptsImages).
func AcceptsImages(p config.Provider, model string) bool {
	if p.Images != nil {
		return *p.Images
	}
	return llm.AcceptsImages(model)
}

// withoutImages replaces the image parts with a note when the model takes
// no images (the user switched to a text-only model after attaching one),
// so the conversation can go on instead of being refused.
func withoutImages(msgs []llm.Message, p config.Provider) []llm.Message {
	if AcceptsImages(p, p.Model) {
		return msgs
	}
	out, copied := msgs, false
	for i, m := range msgs {
		if !slices.ContainsFunc(m.Parts, func(p llm.Part) bool { return p.Kind == llm.PartImage }) {
			continue
		}
		if !copied {
			out, copied = slices.Clone(msgs), true
		}
		parts := slices.Clone(m.Parts)
		for j, part := range parts {
			if part.Kind == llm.PartImage {
				parts[j] = llm.Part{Kind: llm.PartText, Name: part.Name,
					Text: fmt.Sprintf("[The user attached the image %q here; it is not shown because %s does not take images.]", part.Name, p.Model)}
			}
		}
		out[i].Parts = parts
	}
	return out
}

// attachmentParts loads a message's attachments from the blob store as the
// parts the model receives. An attachment whose content is missing (a log
// imported without it) becomes a note saying so.
func attachmentParts(blobs *sessions.Blobs, atts []sessions.Attachment) []llm.Part {
	var parts []llm.Part
	for _, a := range atts {
		parts = append(parts, attachmentPart(blobs, a))
	}
	return parts
}

func attachmentPart(blobs *sessions.Blobs, a sessions.Attachment) llm.Part {
	missing := llm.Part{Kind: llm.PartText, Name: a.Name,
		Text: fmt.Sprintf("[The user attached %q, but its content is missing from this computer.]", a.Name)}
	switch a.Kind {
	case sessions.AttachImage:
		data, err := blobs.Get(a.ID)
		if err != nil {
			return missing
		}
		return llm.Part{Kind: llm.PartImage, Name: a.Name, MIME: a.MIME, Data: data}
	case sessions.AttachText:
		id := a.ID
		if a.TextID != "" {
			id = a.TextID
		}
		data, err := blobs.Get(id)
		if errors.Is(err, sessions.ErrNoBlob) || err != nil {
			return missing
		}
		return llm.Part{Kind: llm.PartText, Name: a.Name, Text: FrameAttachment(a, string(data))}
	default: // sessions.AttachFile
		note := fmt.Sprintf("The file is too large to include here (%d bytes). It was saved at %s", a.Size, a.Path)
		if a.TextPath != "" {
			note += fmt.Sprintf(", and its extracted text at %s", a.TextPath)
		}
		note += ": read it with the Read tool when you need it."
		return llm.Part{Kind: llm.PartText, Name: a.Name, Text: FrameAttachment(a, note)}
	}
}

// FrameAttachment wraps an attached file's text in a tag naming the file, so
// the model can tell the user's words from the file's.
func FrameAttachment(a sessions.Attachment, body string) string {
	head := fmt.Sprintf("<attachment name=%q", a.Name)
	if a.MIME != "" {
		head += fmt.Sprintf(" type=%q", a.MIME)
	}
	if a.Pages > 0 {
		head += fmt.Sprintf(" pages=\"%d\"", a.Pages)
	}
	return head + ">\n" + body + "\n</attachment>"
}
