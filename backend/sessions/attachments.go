package sessions

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"tinyelf/internal/atomicfile"
)

// Attachment kinds: how an attached file reaches the model.
const (
	// AttachImage is sent as image content.
	AttachImage = "image"
	// AttachText is sent as text: a text file's content, or the text
	// extracted from a PDF (TextID).
	AttachText = "text"
	// AttachFile was too large to send: it was saved in the workspace at
	// Path, and the model is told where.
	AttachFile = "file"
)

// Attachment is a file the user attached to a message. The event holds
// only this description; the content is a content-addressed blob beside
// the database (Blobs), so a log stays small and the same file attached
// twice is stored once.
type Attachment struct {
	// ID is the blob of the file's content: its SHA-256, in hex.
	ID   string `json:"id"`
	Name string `json:"name"`
	MIME string `json:"mime,omitempty"`
	Size int64  `json:"size"`
	// Kind is AttachImage, AttachText or AttachFile.
	Kind string `json:"kind"`
	// TextID is the blob of the text extracted from a PDF (AttachText).
	TextID string `json:"textId,omitempty"`
	// Path is where an AttachFile was saved in the workspace (and, for a
	// PDF, TextPath the file of its extracted text).
	Path     string `json:"path,omitempty"`
	TextPath string `json:"textPath,omitempty"`
	// Pages is a PDF's page count.
	Pages int `json:"pages,omitempty"`
}

// Blobs returns the IDs of the blobs the attachment refers to.
func (a Attachment) Blobs() []string {
	out := []string{a.ID}
	if a.TextID != "" {
		out = append(out, a.TextID)
	}
	return out
}

// ErrNoBlob: the store holds no blob with that ID.
var ErrNoBlob = errors.New("attachment content not found")

// Blobs is a content-addressed file store: each blob lives at
// dir/ab/abcdef… named by the SHA-256 of its bytes, written once and never
// changed. It is safe for concurrent use (and by several processes): a blob
// is written to a temporary file and renamed into place.
type Blobs struct {
	dir string
}

// NewBlobs returns the blob store in dir (created on the first Put).
func NewBlobs(dir string) *Blobs { return &Blobs{dir: dir} }

// Dir returns the folder the blobs live in.
func (b *Blobs) Dir() string { return b.dir }

// BlobID returns the ID data is stored under.
func BlobID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// validID reports whether id has the shape of a blob ID, so that a path
// built from it stays inside the store.
func validID(id string) bool {
	if len(id) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

func (b *Blobs) path(id string) string { return filepath.Join(b.dir, id[:2], id) }

// Put stores data and returns its ID; storing what is already there is a
// no-op.
func (b *Blobs) Put(data []byte) (string, error) {
	id := BlobID(data)
	p := b.path(id)
	if _, err := os.Stat(p); err == nil {
		return id, nil
	}
	if err := atomicfile.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("store attachment: %w", err)
	}
	return id, nil
}

// Get returns a blob's bytes, or an error wrapping ErrNoBlob.
func (b *Blobs) Get(id string) ([]byte, error) {
	if !validID(id) {
		return nil, fmt.Errorf("attachment %q: %w", id, ErrNoBlob)
	}
	data, err := os.ReadFile(b.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("attachment %s: %w", id, ErrNoBlob)
	}
	if err != nil {
		return nil, fmt.Errorf("read attachment %s: %w", id, err)
	}
	return data, nil
}

// Has reports whether the blob is stored.
func (b *Blobs) Has(id string) bool {
	if !validID(id) {
		return false
	}
	_, err := os.Stat(b.path(id))
	return err == nil
}
