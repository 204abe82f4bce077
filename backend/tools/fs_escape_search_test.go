package tools

// searchEscapeCases adds Glob and Grep to the escape battery.
func searchEscapeCases(ws *Workspace) []escapeCase {
	return nil
}
