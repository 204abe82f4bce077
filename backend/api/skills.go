package api

import (
	"encoding/json"
	"time"
)

// LiveSkillsChanged tells the UI that the skills changed (a folder, a
// trust answer, an install): Settings → Skills and the "/" menu reload.
const LiveSkillsChanged = "skills.changed"

// publishSkills tells the UI the skills changed.
func (s *Service) publishSkills(reason string) {
	b, _ := json.Marshal(map[string]string{"reason": reason})
	s.bus.Publish(Event{Type: LiveSkillsChanged, Time: time.Now(), Data: b})
}
