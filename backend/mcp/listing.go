package mcp

import "slices"

// ResourceInfo is one resource (or resource template) a connected server
// offers, as the capability catalog describes it.
type ResourceInfo struct {
	Server      string `json:"server"`
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	// Template marks a URI template (RFC 6570) the caller fills in.
	Template bool `json:"template,omitempty"`
}

// Resources returns the resources and templates of every connected server,
// in configuration order. The list is a snapshot.
func (s *Service) Resources() []ResourceInfo {
	s.mu.Lock()
	rs := slices.Clone(s.runners)
	s.mu.Unlock()
	var out []ResourceInfo
	for _, r := range rs {
		r.mu.Lock()
		connected := r.conn != nil && r.state.Status == StatusConnected
		cat := r.cat
		name := r.cfg.Name
		r.mu.Unlock()
		if !connected {
			continue
		}
		for _, res := range cat.resources {
			out = append(out, ResourceInfo{Server: name, URI: res.URI, Name: res.Name, Title: res.Title,
				Description: res.Description, MIMEType: res.MIMEType})
		}
		for _, t := range cat.templates {
			uri := ""
			if t.URITemplate != nil {
				uri = t.URITemplate.Raw()
			}
			out = append(out, ResourceInfo{Server: name, URI: uri, Name: t.Name, Title: t.Title,
				Description: t.Description, MIMEType: t.MIMEType, Template: true})
		}
	}
	return out
}
