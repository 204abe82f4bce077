package mcp

import (
	"context"
	"slices"
	"time"
)

// SetRoots sets the folders TinyElf offers as its MCP roots when a server
// asks outside a tool call: the workspace of the session the user works
// in. A server's roots/list during a call gets that call's session
// workspace instead. When the list changes, every connected server hears
// notifications/roots/list_changed.
func (s *Service) SetRoots(dirs []string) {
	s.rootsMu.Lock()
	same := slices.Equal(s.roots, dirs)
	s.roots = slices.Clone(dirs)
	s.rootsMu.Unlock()
	if same {
		return
	}
	s.mu.Lock()
	rs := slices.Clone(s.runners)
	s.mu.Unlock()
	for _, r := range rs {
		c, _ := r.connection()
		if c == nil || c.kind == kindInProcess {
			continue
		}
		go func() {
			ctx, cancel := context.WithTimeout(c.life, 10*time.Second)
			defer cancel()
			_ = c.client.RootListChanges(ctx)
		}()
	}
}

// Roots returns the folders SetRoots set.
func (s *Service) Roots() []string {
	s.rootsMu.Lock()
	defer s.rootsMu.Unlock()
	return slices.Clone(s.roots)
}
