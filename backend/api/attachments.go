package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"tinyelf/backend/engine"
	"tinyelf/backend/sessions"
	"tinyelf/backend/web"
)

// Attachment limits.
const (
	// MaxAttachmentBytes bounds one attached file (the HTTP transport
	// carries it base64-encoded within its 16 MB body limit).
	MaxAttachmentBytes = 10 << 20
	// MaxImageBytes bounds an image sent to the model (the APIs refuse
	// larger ones: Anthropic at 5 MB).
	MaxImageBytes = 5 << 20
	// MaxInlineTextBytes bounds the text of a file sent with the message;
	// a larger file is saved into the workspace, and the model is told
	// where, so it reads what it needs.
	MaxInlineTextBytes = 100 << 10
)

// AttachmentsFolder is the workspace folder large attachments are saved in.
const AttachmentsFolder = "attachments"

// AttachArgs is a file the user attached in the composer, for the session
// (or, for a new chat, the workspace folder) it is to be sent in.
type AttachArgs struct {
	SessionID string `json:"sessionId,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Name      string `json:"name"`
	MIME      string `json:"mime,omitempty"`
	// Data is the file's content (base64 in JSON).
	Data []byte `json:"data"`
}

// AddAttachment stores an attached file and says how it will reach the
// model: an image as image content, a text file or a PDF's extracted text
// as text, anything larger (or not readable as text) saved into the
// workspace's attachments folder and named to the model by path. The
// content goes into the blob store beside the session database. Send the
// returned Attachment with SendMessage.
func (s *Service) AddAttachment(ctx context.Context, a AttachArgs) (sessions.Attachment, error) {
	name := attachmentName(a.Name)
	if len(a.Data) == 0 {
		return sessions.Attachment{}, invalidf("%s is empty.", name)
	}
	if len(a.Data) > MaxAttachmentBytes {
		return sessions.Attachment{}, invalidf("%s is %s; files up to %s can be attached. Put it in the workspace folder and mention its name instead.",
			name, sizeText(len(a.Data)), sizeText(MaxAttachmentBytes))
	}
	blobs := s.store.Blobs()
	id, err := blobs.Put(a.Data)
	if err != nil {
		return sessions.Attachment{}, err
	}
	att := sessions.Attachment{ID: id, Name: name, MIME: detectMIME(name, a.MIME, a.Data), Size: int64(len(a.Data))}
	switch {
	case strings.HasPrefix(att.MIME, "image/") && isModelImage(att.MIME):
		if len(a.Data) > MaxImageBytes {
			return sessions.Attachment{}, invalidf("%s is %s; images up to %s can be sent to a model. Make it smaller and attach it again.",
				name, sizeText(len(a.Data)), sizeText(MaxImageBytes))
		}
		att.Kind = sessions.AttachImage
		return att, nil
	case att.MIME == "application/pdf":
		text, pages, err := web.PDFText(ctx, a.Data)
		att.Pages = pages
		if err == nil && strings.TrimSpace(text) != "" {
			if att.TextID, err = blobs.Put([]byte(text)); err != nil {
				return sessions.Attachment{}, err
			}
			if len(text) <= MaxInlineTextBytes {
				att.Kind = sessions.AttachText
				return att, nil
			}
		}
		return s.saveToWorkspace(ctx, a, att, text)
	case isText(a.Data):
		if len(a.Data) <= MaxInlineTextBytes {
			att.Kind = sessions.AttachText
			return att, nil
		}
	}
	return s.saveToWorkspace(ctx, a, att, "")
}

// saveToWorkspace writes an attachment too large to send into the
// workspace's attachments folder (with, for a PDF, its extracted text
// beside it) and returns it as an AttachFile.
func (s *Service) saveToWorkspace(ctx context.Context, a AttachArgs, att sessions.Attachment, text string) (sessions.Attachment, error) {
	ws := a.Workspace
	if a.SessionID != "" {
		sess, err := s.store.Get(ctx, a.SessionID)
		if err != nil {
			return sessions.Attachment{}, mapErr(err)
		}
		ws = sess.Workspace
	}
	ws, err := s.resolveWorkspace(ws)
	if err != nil {
		return sessions.Attachment{}, err
	}
	dir := filepath.Join(ws, AttachmentsFolder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sessions.Attachment{}, invalidf("could not save %s into the workspace (%v).", att.Name, err)
	}
	if att.Path, err = writeUnique(dir, att.Name, a.Data); err != nil {
		return sessions.Attachment{}, invalidf("could not save %s into the workspace (%v).", att.Name, err)
	}
	if text != "" {
		if att.TextPath, err = writeUnique(dir, att.Name+".txt", []byte(text)); err != nil {
			return sessions.Attachment{}, invalidf("could not save the text of %s into the workspace (%v).", att.Name, err)
		}
	}
	att.Kind = sessions.AttachFile
	return att, nil
}

// writeUnique writes data to dir/name, or to "name-2.ext" and so on when a
// different file has that name; a file with the same content is reused.
func writeUnique(dir, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		p := filepath.Join(dir, candidate)
		old, err := os.ReadFile(p)
		if err == nil && bytes.Equal(old, data) {
			return p, nil
		}
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			continue
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(p)
			return "", err
		}
		return p, nil
	}
	return "", fmt.Errorf("too many files named like %s", name)
}

// attachmentName is a file name safe to show and to save: its base name,
// without control characters, at most 120 characters.
func attachmentName(name string) string {
	name = filepath.Base(strings.ReplaceAll(strings.TrimSpace(name), `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' {
			return -1
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." {
		name = "attachment"
	}
	if r := []rune(name); len(r) > 120 {
		ext := filepath.Ext(name)
		name = string(r[:120-len([]rune(ext))]) + ext
	}
	return name
}

// detectMIME decides a file's type: the content's own signature for
// images and PDFs (a renamed file is what it is), else the name's
// extension, else what the browser said.
func detectMIME(name, given string, data []byte) string {
	sniffed := http.DetectContentType(data)
	if strings.HasPrefix(sniffed, "image/") || sniffed == "application/pdf" {
		return sniffed
	}
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(name))); t != "" {
		t, _, _ = strings.Cut(t, ";")
		return t
	}
	if given != "" {
		given, _, _ = strings.Cut(given, ";")
		return strings.TrimSpace(given)
	}
	if isText(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// isModelImage reports whether the models take this image type.
func isModelImage(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// isText reports whether data reads as text: valid UTF-8 without NULs.
func isText(data []byte) bool {
	return utf8.Valid(data) && !bytes.ContainsRune(data, 0)
}

// sizeText says a size in bytes as people read it.
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// checkAttachments makes sure a message's attachments are stored here and
// that the session's model can take them: an image for a text-only model
// is refused with what to do.
func (s *Service) checkAttachments(ctx context.Context, sess sessions.Session, atts []sessions.Attachment) error {
	blobs := s.store.Blobs()
	for _, a := range atts {
		switch a.Kind {
		case sessions.AttachImage, sessions.AttachText, sessions.AttachFile:
		default:
			return invalidf("attachment %s has an unknown kind %q", a.Name, a.Kind)
		}
		for _, id := range a.Blobs() {
			if !blobs.Has(id) {
				return invalidf("the content of %s is missing: attach it again", a.Name)
			}
		}
		if a.Kind != sessions.AttachImage {
			continue
		}
		p, ok := s.settings.Get().WithEnvironment(s.opts.Getenv).Provider(sess.Provider)
		model := sess.Model
		if model == "" {
			model = p.Model
		}
		if ok && !engine.AcceptsImages(p, model) {
			return invalidf("%s does not take images, so %s cannot be sent. Choose a model that does with the model button above (GPT-4o, Claude, Gemini or a vision model), or remove the image.", model, a.Name)
		}
	}
	return nil
}

// AttachmentData is an attachment's content, for the chat's thumbnails.
type AttachmentData struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
}

// AttachmentArgs names an attachment's blob.
type AttachmentArgs struct {
	ID   string `json:"id"`
	MIME string `json:"mime,omitempty"`
}

// GetAttachment returns an attachment's content.
func (s *Service) GetAttachment(_ context.Context, a AttachmentArgs) (AttachmentData, error) {
	data, err := s.store.Blobs().Get(a.ID)
	if errors.Is(err, sessions.ErrNoBlob) {
		return AttachmentData{}, notFoundf("this attachment's content is not on this computer")
	}
	if err != nil {
		return AttachmentData{}, err
	}
	m := a.MIME
	if m == "" {
		m = http.DetectContentType(data)
	}
	return AttachmentData{MIME: m, Data: data}, nil
}
