package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"tinyelf/backend/tokens"
)

// DefaultIndexDescriptionRunes caps each skill's description in the index:
// long enough for the what-and-when sentence the spec asks for, short enough
// that a hundred skills cost a few thousand tokens.
const DefaultIndexDescriptionRunes = 250

// IndexEntry is one skill's line in the model's view.
type IndexEntry struct {
	Name   string `json:"name"`
	ID     string `json:"id"` // skill__<name>
	Source Source `json:"source"`
	// Description is the capped description (with when_to_use appended).
	Description string `json:"description"`
	// Line is what the model reads: "- name: description".
	Line string `json:"line"`
	// Tokens estimates Line's cost (tokens.Estimate).
	Tokens int `json:"tokens"`
}

// Index is the skills part of the model's view, built from a snapshot.
type Index struct {
	Entries []IndexEntry `json:"entries"`
	Tokens  int          `json:"tokens"`
}

// IndexOptions tunes an index.
type IndexOptions struct {
	// MaxDescriptionRunes caps each description (0: the default).
	MaxDescriptionRunes int
	// Include filters skills; nil keeps all. Skills with
	// disable-model-invocation are always left out.
	Include func(*Skill) bool
	// TrustedOnly (Library.Index) leaves out project skills not trusted
	// yet, for a run that cannot ask the user (`tinyelf run` without
	// --yes): the model should not see what it cannot load.
	TrustedOnly bool
}

// Index builds the index of the snapshot's effective skills the model may
// invoke, sorted by name.
func (s *Snapshot) Index(o IndexOptions) Index {
	limit := o.MaxDescriptionRunes
	if limit <= 0 {
		limit = DefaultIndexDescriptionRunes
	}
	var idx Index
	for _, sk := range s.Skills {
		if sk.DisableModelInvocation || (o.Include != nil && !o.Include(sk)) {
			continue
		}
		e := IndexEntryFor(sk, limit)
		idx.Entries = append(idx.Entries, e)
		idx.Tokens += e.Tokens
	}
	return idx
}

// IndexEntryFor returns the index line of one skill with its description
// capped at limit runes.
func IndexEntryFor(sk *Skill, limit int) IndexEntry {
	desc := strings.Join(strings.Fields(sk.Description), " ")
	if sk.WhenToUse != "" {
		desc += " " + strings.Join(strings.Fields(sk.WhenToUse), " ")
	}
	desc = capRunes(desc, limit)
	line := "- " + sk.Name + ": " + desc
	return IndexEntry{Name: sk.Name, ID: sk.ID(), Source: sk.Source, Description: desc, Line: line, Tokens: tokens.Estimate(line) + 1}
}

// Text renders the index as the lines the model reads, with a one-line
// preamble saying how to load a skill; "" when there are no entries (the
// guide: no empty catalog).
func (idx Index) Text() string {
	if len(idx.Entries) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("Skills (task guides; call read_skill with a name to load one when the task matches):\n")
	for _, e := range idx.Entries {
		sb.WriteString(e.Line)
		sb.WriteByte('\n')
	}
	return sb.String()
}

func capRunes(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	cut := string(r[:limit-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)*3/4 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// CompactedNote is the one line that replaces a loaded skill's body in the
// history after a compaction; the skill can be read again.
func CompactedNote(name string) string {
	return fmt.Sprintf("[Skill %q was loaded here; its instructions were removed when the conversation was compacted. Call read_skill with name %q to read them again before relying on them.]", name, name)
}
