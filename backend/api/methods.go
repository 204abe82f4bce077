package api

import (
	"context"
	"encoding/json"
	"os"
)

// method adapts a typed service method to a Method: it decodes the JSON
// arguments (unknown fields are ignored, so an older backend accepts a newer
// UI's calls) and returns the result.
func method[A, R any](fn func(context.Context, A) (R, error)) Method {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var args A
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return nil, invalidf("bad arguments: %v", err)
			}
		}
		return fn(ctx, args)
	}
}

// Methods returns every service operation by name, for the HTTP server and
// the window's Call binding; both transports therefore offer exactly the
// same operations.
func (s *Service) Methods() map[string]Method {
	return map[string]Method{
		"State":                 method(s.State),
		"DismissSettingsNotice": method(s.DismissSettingsNotice),
		"ListSessions":          method(s.ListSessions),
		"GetSession":            method(s.GetSession),
		"CreateSession":         method(s.CreateSession),
		"SendMessage":           method(s.SendMessage),
		"ExpandCommand":         method(s.ExpandCommand),
		"Cancel":                method(s.Cancel),
		"Approve":               method(s.Approve),
		"SetMode":               method(s.SetMode),
		"RenameSession":         method(s.RenameSession),
		"DeleteSession":         method(s.DeleteSession),
		"RestoreSession":        method(s.RestoreSession),
		"ForkSession":           method(s.ForkSession),
		"ResendEdited":          method(s.ResendEdited),
		"ExportSession":         method(s.ExportSession),
		"ImportSession":         method(s.ImportSession),
		"Search":                method(s.Search),
		"GetSettings":           method(s.GetSettings),
		"SaveProvider":          method(s.SaveProvider),
		"DeleteProvider":        method(s.DeleteProvider),
		"TestProvider":          method(s.TestProvider),
		"Presets":               method(s.Presets),
		"DetectLocal":           method(s.DetectLocal),
		"UpdatePreferences":     method(s.UpdatePreferences),
		"ListRules":             method(s.ListRules),
		"AddRule":               method(s.AddRule),
		"RemoveRule":            method(s.RemoveRule),
		"SetFocused":            method(s.SetFocused),
		"ListFolders":           method(s.ListFolders),
		"ListMCPServers":        method(s.ListMCPServers),
		"SaveMCPServer":         method(s.SaveMCPServer),
		"RemoveMCPServer":       method(s.RemoveMCPServer),
		"SetMCPServerEnabled":   method(s.SetMCPServerEnabled),
		"RestartMCPServer":      method(s.RestartMCPServer),
		"SignInMCPServer":       method(s.SignInMCPServer),
		"SignOutMCPServer":      method(s.SignOutMCPServer),
		"ImportMCPConfig":       method(s.ImportMCPConfig),
		"TestMCPServer":         method(s.TestMCPServer),
		"ListMCPPrompts":        method(s.ListMCPPrompts),
		"ListCommands":          method(s.ListCommands),
		"ListSkills":            method(s.skillsAPI.ListSkills),
		"GetSkill":              method(s.skillsAPI.GetSkill),
		"SetSkillTrust":         method(s.skillsAPI.SetSkillTrust),
		"SearchSkillHub":        method(s.skillsAPI.SearchSkillHub),
		"InstallSkill":          method(s.skillsAPI.InstallSkill),
		"RemoveSkill":           method(s.skillsAPI.RemoveSkill),
		"ValidateSkill":         method(s.skillsAPI.ValidateSkill),
		"GetSkillSettings":      method(s.skillsAPI.GetSkillSettings),
		"SaveSkillSettings":     method(s.skillsAPI.SaveSkillSettings),
		"OpenSkillFolder":       method(s.skillsAPI.OpenSkillFolder),
		"ListHooks":             method(s.hooksAPI.ListHooks),
		"SaveHooks":             method(s.hooksAPI.SaveHooks),
		"SetHooksTrust":         method(s.hooksAPI.SetHooksTrust),
		"TestHook":              method(s.hooksAPI.TestHook),
		"ListCapabilities":      method(s.ListCapabilities),
		"SearchCapabilities":    method(s.SearchCapabilities),
		"ReplayCapabilities":    method(s.ReplayCapabilities),
		"GetWebSettings":        method(s.GetWebSettings),
		"SaveWebSettings":       method(s.SaveWebSettings),
		"TestWebSearch":         method(s.TestWebSearch),
		"ListUserTools":         method(s.ListUserTools),
		"RefreshUserTools":      method(s.RefreshUserTools),
		"ShareUserTool":         method(s.ShareUserTool),
		"SaveToolPermissions":   method(s.SaveToolPermissions),
		"SetToolSecret":         method(s.SetToolSecret),
		"ListToolTasks":         method(s.ListToolTasks),
		"RunUserTool":           method(s.RunUserTool),
		"OpenToolsFolder":       method(s.OpenToolsFolder),
		"ListAgents":            method(s.ListAgents),
		"SaveAgent":             method(s.SaveAgent),
		"DeleteAgent":           method(s.DeleteAgent),
		"ListSubagents":         method(s.ListSubagents),
		// Issue 15 (ui-core): attachments, recovery, notifications, folders,
		// the model picker and the window.
		"AddAttachment":            method(s.AddAttachment),
		"GetAttachment":            method(s.GetAttachment),
		"RetryTurn":                method(s.RetryTurn),
		"ContinueTurn":             method(s.ContinueTurn),
		"Regenerate":               method(s.Regenerate),
		"GetNotificationSettings":  method(s.GetNotificationSettings),
		"SaveNotificationSettings": method(s.SaveNotificationSettings),
		"TestNotification":         method(s.TestNotification),
		"RecentFolders":            method(s.RecentFolders),
		"RunningTasks":             method(s.RunningTasks),
		"ListModels":               method(s.ListModels),
		"SetModel":                 method(s.SetModel),
	}
}

// Call runs one method by name with JSON arguments and returns its JSON
// result; the desktop window's binding uses it.
func (s *Service) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	m, ok := s.Methods()[name]
	if !ok {
		return nil, notFoundf("unknown method %q", name)
	}
	res, err := m(ctx, args)
	if err != nil {
		return nil, mapErr(err)
	}
	return json.Marshal(res)
}

func homeDir() (string, error) { return os.UserHomeDir() }
