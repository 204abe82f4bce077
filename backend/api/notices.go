package api

import "context"

// SettingsNotice tells the UI that the settings file could not be read when
// the service started: it was set aside (never deleted) and the defaults are
// in use. The UI words it in the user's language from these fields.
type SettingsNotice struct {
	// Path is the settings file.
	Path string `json:"path"`
	// Aside is where the unreadable file was kept.
	Aside string `json:"aside"`
	// Error says why it could not be read.
	Error string `json:"error"`
}

// settingsNotice returns the notice while it has not been dismissed.
func (s *Service) settingsNotice() *SettingsNotice {
	rec, ok := s.settings.Recovered()
	if !ok || s.noticeDismissed.Load() {
		return nil
	}
	return &SettingsNotice{Path: rec.Path, Aside: rec.Aside, Error: rec.Err}
}

// DismissSettingsNotice hides the settings notice for the rest of this
// service's life: State no longer reports it, in any window or tab.
func (s *Service) DismissSettingsNotice(context.Context, struct{}) (struct{}, error) {
	s.noticeDismissed.Store(true)
	return struct{}{}, nil
}
