package api

import (
	"context"

	"tinyelf/backend/config"
	"tinyelf/backend/sessions"
)

// WindowState is the desktop window's size and place, as the settings
// remember it.
type WindowState struct {
	X         int  `json:"x"`
	Y         int  `json:"y"`
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximised bool `json:"maximised,omitempty"`
}

// WindowState returns where the desktop window was when it last closed,
// or nil when it never did (it then opens at its default size, centred).
// The desktop shell calls it; it is not a UI method.
func (s *Service) WindowState() *WindowState {
	w := s.settings.Get().Window
	if w == nil || w.Width < 200 || w.Height < 150 {
		return nil // a remembered size no one can use is forgotten
	}
	c := WindowState(*w)
	return &c
}

// SaveWindowState remembers the desktop window's size and place.
func (s *Service) SaveWindowState(w WindowState) error {
	c := config.WindowState(w)
	return s.settings.Update(func(st *config.Settings) error { st.Window = &c; return nil })
}

// RunningTasks returns the titles of the sessions whose agent is working
// now (at most the first 100 sessions by recency are looked at), so the
// window can ask before it closes on them.
func (s *Service) RunningTasks(ctx context.Context, _ struct{}) ([]string, error) {
	list, err := s.store.List(ctx, sessions.ListOptions{Limit: 100})
	if err != nil {
		return nil, mapErr(err)
	}
	out := []string{}
	for _, sess := range list {
		if s.engine.Running(sess.ID) {
			title := sess.Title
			if title == "" {
				title = "Untitled session"
			}
			out = append(out, title)
		}
	}
	return out, nil
}
