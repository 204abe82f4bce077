package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// maxMetadata bounds a metadata document or token response.
const maxMetadata = 1 << 20

// ResourceMetadata is a protected resource metadata document (RFC 9728).
type ResourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	ResourceName         string   `json:"resource_name,omitempty"`
}

// ServerMetadata is an authorization server's metadata (RFC 8414, or an
// OpenID Provider's configuration), with the fields mcp-go does not know.
type ServerMetadata struct {
	transport.AuthServerMetadata
	ClientIDMetadataDocumentSupported bool   `json:"client_id_metadata_document_supported,omitempty"`
	UserinfoEndpoint                  string `json:"userinfo_endpoint,omitempty"`
	// IssParameterSupported: the authorization response carries iss
	// (RFC 9207), which the client then requires.
	IssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// Discovery is what discover found for one MCP server.
type Discovery struct {
	// Resource is the RFC 8707 resource indicator: the resource metadata's
	// resource, else the MCP server's URL.
	Resource string
	// PRM is the resource metadata (nil for a 2025-03-26 server without).
	PRM *ResourceMetadata
	// Metadata is the authorization server's; Found is false when no
	// document was found and the 2025-03-26 default endpoints stand in.
	Metadata ServerMetadata
	Found    bool
}

// getJSON fetches a metadata document; a non-200 answer is (false, nil).
func getJSON(ctx context.Context, hc *http.Client, u string, v any) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return false, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadata))
		return false, nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadata)).Decode(v); err != nil {
		return false, fmt.Errorf("%s is not a JSON metadata document: %w", u, err)
	}
	return true, nil
}

// wellKnown inserts /.well-known/<suffix> between u's origin and its path
// (RFC 8414 §3.1, RFC 9728 §3.1); root drops the path.
func wellKnown(u *url.URL, suffix string, root bool) string {
	p := strings.TrimSuffix(u.EscapedPath(), "/")
	out := u.Scheme + "://" + u.Host + "/.well-known/" + suffix
	if !root && p != "" {
		out += p
	}
	return out
}

// discover finds the resource metadata and authorization server of the
// MCP server at serverURL, starting from a challenge's resource_metadata
// when there is one.
func discover(ctx context.Context, hc *http.Client, serverURL string, ch Challenge) (Discovery, error) {
	su, err := url.Parse(serverURL)
	if err != nil || su.Host == "" {
		return Discovery{}, fmt.Errorf("server URL %q: %v", serverURL, err)
	}
	var candidates []string
	if ch.ResourceMetadata != "" {
		candidates = append(candidates, ch.ResourceMetadata)
	}
	if strings.Trim(su.Path, "/") != "" {
		candidates = append(candidates, wellKnown(su, "oauth-protected-resource", false))
	}
	candidates = append(candidates, wellKnown(su, "oauth-protected-resource", true))
	var prm *ResourceMetadata
	for _, c := range candidates {
		var doc ResourceMetadata
		ok, err := getJSON(ctx, hc, c, &doc)
		if err != nil {
			return Discovery{}, fmt.Errorf("protected resource metadata: %w", err)
		}
		if !ok {
			continue
		}
		if doc.Resource != "" && !bindsTo(doc.Resource, su) {
			return Discovery{}, fmt.Errorf("the protected resource metadata at %s is for %s, not %s; refusing to send a token meant for this server elsewhere", c, doc.Resource, serverURL)
		}
		prm = &doc
		break
	}
	d := Discovery{Resource: canonical(su), PRM: prm}
	if prm == nil {
		// 2025-03-26: the authorization server is the MCP server's origin.
		base := su.Scheme + "://" + su.Host
		for _, u := range []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"} {
			ok, err := getJSON(ctx, hc, u, &d.Metadata)
			if err != nil {
				return Discovery{}, fmt.Errorf("authorization server metadata: %w", err)
			}
			if ok {
				d.Found = true
				return d, validEndpoints(d.Metadata)
			}
		}
		d.Metadata.Issuer = base
		d.Metadata.AuthorizationEndpoint = base + "/authorize"
		d.Metadata.TokenEndpoint = base + "/token"
		d.Metadata.RegistrationEndpoint = base + "/register"
		return d, nil
	}
	if prm.Resource != "" {
		d.Resource = prm.Resource
	}
	if len(prm.AuthorizationServers) == 0 {
		return Discovery{}, errors.New("the protected resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" || (iu.Scheme != "https" && iu.Scheme != "http") {
		return Discovery{}, fmt.Errorf("authorization server %q is not an http(s) URL", issuer)
	}
	for _, u := range serverMetadataURLs(iu) {
		var md ServerMetadata
		ok, err := getJSON(ctx, hc, u, &md)
		if err != nil {
			return Discovery{}, fmt.Errorf("authorization server metadata: %w", err)
		}
		if !ok {
			continue
		}
		if strings.TrimSuffix(md.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return Discovery{}, fmt.Errorf("the authorization server metadata at %s names issuer %q, not %q", u, md.Issuer, issuer)
		}
		d.Metadata, d.Found = md, true
		return d, validEndpoints(md)
	}
	return Discovery{}, fmt.Errorf("the authorization server %s publishes no metadata (tried RFC 8414 and OpenID Connect discovery)", issuer)
}

// serverMetadataURLs are the places an issuer's metadata may be, in the
// order the MCP specification gives.
func serverMetadataURLs(iu *url.URL) []string {
	p := strings.Trim(iu.EscapedPath(), "/")
	base := iu.Scheme + "://" + iu.Host
	if p == "" {
		return []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}
	}
	return []string{
		base + "/.well-known/oauth-authorization-server/" + p,
		base + "/.well-known/openid-configuration/" + p,
		base + "/" + p + "/.well-known/openid-configuration",
	}
}

// validEndpoints refuses metadata whose endpoints are not http(s) URLs
// (a javascript: authorization endpoint would reach the browser).
func validEndpoints(md ServerMetadata) error {
	for name, v := range map[string]string{
		"authorization_endpoint": md.AuthorizationEndpoint, "token_endpoint": md.TokenEndpoint,
		"registration_endpoint": md.RegistrationEndpoint, "userinfo_endpoint": md.UserinfoEndpoint,
	} {
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
			return fmt.Errorf("the authorization server's %s %q is not an http(s) URL", name, v)
		}
	}
	if md.TokenEndpoint == "" {
		return errors.New("the authorization server metadata has no token_endpoint")
	}
	return nil
}

// canonical is the MCP server URL as a resource indicator: no fragment,
// lower-case scheme and host.
func canonical(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = strings.ToLower(c.Host)
	return c.String()
}

// bindsTo reports whether a resource metadata's resource names the MCP
// server at su: same scheme and host, and a path equal to su's or a
// segment-wise prefix of it (a server at /mcp may declare its origin).
func bindsTo(resource string, su *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || !strings.EqualFold(r.Scheme, su.Scheme) || !strings.EqualFold(r.Host, su.Host) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(su.EscapedPath(), "/")
	return rp == sp || strings.HasPrefix(sp, rp+"/")
}
