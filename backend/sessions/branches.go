package sessions

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
)

// Conversation is a session seen together with its edit-and-resend
// branches (Store.Branch): the root, which is the conversation as it was
// first started, and every branch made from it or from one of its
// branches. The UI shows them as one conversation whose edited messages
// switch between versions.
type Conversation struct {
	// Root is the session the conversation started as; its title is the
	// conversation's.
	Root Session `json:"root"`
	// Sessions are the root and its branches, oldest first. Deleted
	// branches are left out unless the whole conversation is deleted.
	Sessions []Session `json:"sessions"`
	// Points are the user messages of the session asked about that exist
	// in more than one version, in order.
	Points []BranchPoint `json:"points"`
}

// BranchPoint is a user message of one session that has other versions:
// the same place in the conversation (same history before it) with
// different text sent.
type BranchPoint struct {
	// Seq is the message in the session asked about.
	Seq int64 `json:"seq"`
	// Index is the version that session shows, 0-based, oldest first.
	Index int `json:"index"`
	// Versions are the versions, oldest first.
	Versions []BranchVersion `json:"versions"`
}

// BranchVersion is one version at a BranchPoint.
type BranchVersion struct {
	// Session is the session to open to see this version: of those that
	// show it, the one updated last (the session asked about, for its own
	// version).
	Session string `json:"session"`
	// Seq is the version's message in Session.
	Seq int64 `json:"seq"`
}

// maxBranchDepth bounds the walk up a chain of branches, so a damaged or
// hand-made log whose ForkedFrom links loop cannot hang Conversation.
const maxBranchDepth = 10_000

// Conversation returns the conversation the session belongs to and where
// the session's messages have other versions. A session that is no branch
// and has none is a conversation of one, without points. A branch whose
// parent is gone (purged, or imported alone) is its own root.
//
// Versions are told apart by the order of user messages, which forks keep
// (seqs may not: a fork leaves deletes and restores out): the j-th user
// message of a session was written in the session that owns it, which is
// the session itself when it came after the fork point, or else whoever
// owns the parent's j-th. Two sessions show the same version of message j
// when the same session owns it, and they are versions of each other at
// message j when the same session owns their message j-1.
func (s *Store) Conversation(ctx context.Context, id string) (_ Conversation, err error) {
	defer s.explain(&err)
	var conv Conversation
	err = s.read(ctx, func(tx *sql.Tx) error {
		var err error
		conv, err = loadConversation(ctx, tx, id)
		return err
	})
	if err != nil {
		return Conversation{}, fmt.Errorf("conversation of session %s: %w", id, err)
	}
	return conv, nil
}

func loadConversation(ctx context.Context, q querier, id string) (Conversation, error) {
	self, err := getSession(ctx, q, id)
	if err != nil {
		return Conversation{}, err
	}
	// Up to the root; the sessions on the way are kept even when deleted,
	// so the session asked about is always reached from the root.
	path := map[string]bool{self.ID: true}
	root := self
	for depth := 0; root.Branch && depth < maxBranchDepth; depth++ {
		parent, err := getSession(ctx, q, root.ForkedFrom)
		if errors.Is(err, ErrNotFound) {
			break
		}
		if err != nil {
			return Conversation{}, err
		}
		if path[parent.ID] {
			break // a loop: stop where it closes
		}
		path[parent.ID] = true
		root = parent
	}
	members := []Session{root}
	seen := map[string]bool{root.ID: true}
	for i := 0; i < len(members); i++ {
		kids, err := branchesOf(ctx, q, members[i].ID)
		if err != nil {
			return Conversation{}, err
		}
		for _, k := range kids {
			if seen[k.ID] || (k.Deleted() && !root.Deleted() && !path[k.ID]) {
				continue
			}
			seen[k.ID] = true
			members = append(members, k)
		}
	}
	slices.SortFunc(members, func(a, b Session) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	conv := Conversation{Root: root, Sessions: members, Points: []BranchPoint{}}
	if len(members) == 1 {
		return conv, nil
	}
	f := family{byID: map[string]*member{}, rootID: root.ID}
	for _, m := range members {
		seqs, err := userSeqs(ctx, q, m.ID)
		if err != nil {
			return Conversation{}, err
		}
		f.byID[m.ID] = &member{s: m, users: seqs}
	}
	conv.Points = f.points(self.ID, members)
	return conv, nil
}

// branchesOf returns the branches made directly from a session.
func branchesOf(ctx context.Context, q querier, id string) ([]Session, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE forked_from = ? AND forked_from <> '' AND branch = 1`, id)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, classify(err)
		}
		out = append(out, sess)
	}
	return out, classify(rows.Err())
}

// userSeqs returns the seqs of a session's user messages, in order.
func userSeqs(ctx context.Context, q querier, id string) ([]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT seq FROM ui_messages WHERE session_id = ? AND kind = ? ORDER BY seq`, id, string(UIUser))
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, classify(err)
		}
		out = append(out, seq)
	}
	return out, classify(rows.Err())
}

// family is a conversation's sessions with their user messages, for
// working out which session owns which message.
type family struct {
	rootID string
	byID   map[string]*member
}

type member struct {
	s      Session
	users  []int64 // seqs of its user messages
	copied int     // user messages copied from the parent, once known
	known  bool    // copied is worked out
}

// copiedUsers is how many of m's user messages came from its parent: the
// parent's user messages up to the fork point.
func (f *family) copiedUsers(m *member) int {
	if m.known {
		return m.copied
	}
	m.known = true
	parent, ok := f.byID[m.s.ForkedFrom]
	if m.s.ID == f.rootID || !ok {
		return 0
	}
	m.copied = len(slices.DeleteFunc(slices.Clone(parent.users), func(seq int64) bool { return seq > m.s.ForkedAtSeq }))
	return m.copied
}

// owner returns the session that wrote m's j-th user message (1-based);
// for j = 0, the root (everything starts there).
func (f *family) owner(m *member, j int) string {
	for depth := 0; depth < maxBranchDepth; depth++ {
		if j == 0 {
			return f.rootID
		}
		parent, ok := f.byID[m.s.ForkedFrom]
		if m.s.ID == f.rootID || !ok || j > f.copiedUsers(m) {
			return m.s.ID
		}
		m = parent
	}
	return m.s.ID
}

// points finds the user messages of the session self that exist in more
// than one version. members are in the order versions are numbered.
func (f *family) points(self string, members []Session) []BranchPoint {
	me := f.byID[self]
	out := []BranchPoint{}
	for j := 1; j <= len(me.users); j++ {
		prefix := f.owner(me, j-1)
		mine := f.owner(me, j)
		type version struct {
			owner string
			open  *member
		}
		var versions []version
		for _, s := range members {
			m := f.byID[s.ID]
			if len(m.users) < j || f.owner(m, j-1) != prefix {
				continue
			}
			o := f.owner(m, j)
			i := slices.IndexFunc(versions, func(v version) bool { return v.owner == o })
			if i < 0 {
				versions = append(versions, version{owner: o, open: m})
				continue
			}
			// Open the session the user was in last; their own, for the
			// version they are looking at.
			cur := versions[i].open
			if cur.s.ID != self && (m.s.ID == self || m.s.UpdatedAt.After(cur.s.UpdatedAt)) {
				versions[i].open = m
			}
		}
		if len(versions) < 2 {
			continue
		}
		// Oldest version first: the order in which their owners were made.
		created := func(id string) Session { return f.byID[id].s }
		slices.SortStableFunc(versions, func(a, b version) int {
			sa, sb := created(a.owner), created(b.owner)
			return cmp.Or(sa.CreatedAt.Compare(sb.CreatedAt), cmp.Compare(sa.ID, sb.ID))
		})
		p := BranchPoint{Seq: me.users[j-1]}
		for i, v := range versions {
			if v.owner == mine {
				p.Index = i
			}
			p.Versions = append(p.Versions, BranchVersion{Session: v.open.s.ID, Seq: v.open.users[j-1]})
		}
		out = append(out, p)
	}
	return out
}
