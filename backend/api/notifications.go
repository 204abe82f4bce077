package api

import (
	"context"
	"fmt"
	"strings"
	"time"

	"tinyelf/backend/config"
	"tinyelf/backend/mcp"
	"tinyelf/backend/notify"
	"tinyelf/backend/tools"
	"tinyelf/backend/usertools"
)

// NotificationSettings are the choices of Settings → Notifications.
type NotificationSettings struct {
	// Enabled is the master switch.
	Enabled bool `json:"enabled"`
	notify.Rules
}

// notifyRules turns the stored choices into the policy's rules.
func notifyRules(st config.Settings) notify.Rules {
	n := st.Notify
	return notify.Rules{
		TurnFinished:    config.On(n.TurnFinished),
		ApprovalWaiting: config.On(n.ApprovalWaiting),
		BackgroundDone:  config.On(n.BackgroundDone),
		MCPFailed:       config.On(n.MCPFailed),
		Sound:           config.On(n.Sound),
		OnlyUnfocused:   n.Always == nil || !*n.Always,
	}
}

// GetNotificationSettings returns the notification choices.
func (s *Service) GetNotificationSettings(context.Context, struct{}) (NotificationSettings, error) {
	st := s.settings.Get()
	return NotificationSettings{Enabled: st.NotificationsOn(), Rules: notifyRules(st)}, nil
}

// SaveNotificationSettings stores the notification choices; they apply at
// once.
func (s *Service) SaveNotificationSettings(_ context.Context, a NotificationSettings) (NotificationSettings, error) {
	b := func(v bool) *bool { return &v }
	err := s.settings.Update(func(st *config.Settings) error {
		st.Notifications = b(a.Enabled)
		st.Notify = config.NotifySettings{
			TurnFinished: b(a.TurnFinished), ApprovalWaiting: b(a.ApprovalWaiting), BackgroundDone: b(a.BackgroundDone),
			MCPFailed: b(a.MCPFailed), Sound: b(a.Sound), Always: b(!a.OnlyUnfocused),
		}
		return nil
	})
	if err != nil {
		return NotificationSettings{}, mapErr(err)
	}
	s.applyNotifySettings()
	return s.GetNotificationSettings(context.Background(), struct{}{})
}

// applyNotifySettings hands the stored choices to the policy.
func (s *Service) applyNotifySettings() {
	st := s.settings.Get()
	s.policy.SetEnabled(st.NotificationsOn())
	s.policy.SetRules(notifyRules(st))
}

// NotifyTestResult says whether the test notification went out.
type NotifyTestResult struct {
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// TestNotification shows a sample notification now, whatever the focus
// and the event choices, so the user sees what one looks like (and hears
// it, with sound on).
func (s *Service) TestNotification(ctx context.Context, _ struct{}) (NotifyTestResult, error) {
	s.applyNotifySettings()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.policy.Test(ctx, "TinyElf", "This is how TinyElf tells you that a task finished."); err != nil {
		return NotifyTestResult{OK: false, Message: fmt.Sprintf("The notification could not be shown: %v", err)}, nil
	}
	return NotifyTestResult{OK: true, Message: "Sent. If none appeared, check your desktop's notification settings for TinyElf."}, nil
}

// notifyMCPFailure tells the user, as their choices allow, that a server
// failed for good (not while it is restarting).
func (s *Service) notifyMCPFailure(c mcp.Change) {
	if c.State.Status != mcp.StatusFailed {
		return
	}
	go func() { // never hold up the MCP service's change callback
		ctx, cancel := context.WithTimeout(context.Background(), notify.DefaultTimeout)
		defer cancel()
		_ = s.policy.MCPServerFailed(ctx, c.Server, c.State.Error)
	}()
}

// notifyTaskEnded tells the user, as their choices allow, that a
// background tool task ended (done or failed; not queued, running or
// interrupted by a restart).
func (s *Service) notifyTaskEnded(t usertools.Task) {
	if t.State != usertools.TaskDone && t.State != usertools.TaskFailed {
		return
	}
	title := "Background task " + t.Tool
	if t.Action != "" {
		title += " " + t.Action
	}
	failed := t.State == usertools.TaskFailed || t.IsError
	if failed {
		title += " failed"
	} else {
		title += " finished"
	}
	summary := tools.CutUTF8(strings.TrimSpace(t.Result), 200)
	go func() { // never hold up the task list's callback
		ctx, cancel := context.WithTimeout(context.Background(), notify.DefaultTimeout)
		defer cancel()
		_ = s.policy.TaskEnded(ctx, title, summary, failed)
	}()
}
