package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Limits of the Web tools (the seed's WebFetch: 30 s timeout, 5 MB response).
const (
	DefaultTimeout     = 30 * time.Second
	MaxBodyBytes       = 5 << 20
	MaxRedirects       = 10
	webUserAgent       = "Mozilla/5.0 (compatible; TinyElf/0.1; desktop AI agent)"
	webLocalLookupWait = 3 * time.Second
)

// LookupFunc resolves a host name to its addresses. Tests pass one that
// maps public-looking names to loopback to play DNS rebinding.
type LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)

// WebNet is how the Web tools reach the network: the SSRF policy and the
// dialer that enforces it. The zero value refuses every local address and
// resolves names with the system resolver. It is safe for concurrent use.
type Net struct {
	// AllowLocal lets requests reach loopback, private, link-local and
	// metadata addresses; even then a request that reaches one needs the
	// user's approval for the call (see WithApproval).
	AllowLocal bool
	// Lookup resolves names; nil uses the system resolver.
	Lookup LookupFunc
	// Timeout bounds a whole request, redirects and body included (0:
	// WebDefaultTimeout).
	Timeout time.Duration

	// treatAsPublic lets tests stand a loopback server in for a public one.
	treatAsPublic func(netip.AddrPort) bool
}

// ErrLocalAddress is wrapped by the error of a request refused because it
// would reach a local or private address.
var ErrLocalAddress = errors.New("local or private address refused")

// localAddressError says which address was refused and why.
type localAddressError struct {
	host, addr, kind string
	allowed          bool // local addresses are allowed, but this call was not approved
}

func (e *localAddressError) Error() string {
	what := fmt.Sprintf("%s resolves to %s (%s)", e.host, e.addr, e.kind)
	if strings.Trim(e.host, "[]") == e.addr {
		what = fmt.Sprintf("%s is a %s address", e.addr, e.kind)
	}
	if e.allowed {
		return what + "; local addresses are allowed in Settings → Web, but this call was not approved for one"
	}
	return what + ", and the Web tools do not reach local or private addresses unless Settings → Web allows it"
}

func (e *localAddressError) Unwrap() error { return ErrLocalAddress }

// metadataAddrs are the cloud instance-metadata endpoints.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	benchmark   = netip.MustParsePrefix("198.18.0.0/15")
)

// LocalKind returns what kind of non-public address a is ("loopback",
// "private", "link-local", "metadata", ...), or "" for a public one.
// IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4 they carry.
func LocalKind(a netip.Addr) string {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		return LocalKind(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	for _, m := range metadataAddrs {
		if a == m {
			return "cloud metadata"
		}
	}
	switch {
	case !a.IsValid():
		return "invalid"
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified() || thisNetwork.Contains(a):
		return "unspecified"
	case a.IsPrivate():
		if a.Is6() {
			return "unique local"
		}
		return "private"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast() || a.IsInterfaceLocalMulticast():
		return "multicast"
	case sharedSpace.Contains(a):
		return "shared address space"
	case benchmark.Contains(a):
		return "benchmarking network"
	case a.Is4() && a.As4() == [4]byte{255, 255, 255, 255}:
		return "broadcast"
	}
	return ""
}

type approvalKey struct{}

// WithApproval returns a context saying the user approved the running call
// (by answering, by a rule, or by choosing auto mode). The permission gate
// sets it; a Safe tool never has it unless the gate asked.
func WithApproval(ctx context.Context) context.Context {
	return context.WithValue(ctx, approvalKey{}, true)
}

// Approved reports whether the running call was approved by the user.
func Approved(ctx context.Context) bool {
	ok, _ := ctx.Value(approvalKey{}).(bool)
	return ok
}

func (n *Net) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{a}, nil
	}
	if n.Lookup != nil {
		return n.Lookup(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func (n *Net) timeout() time.Duration {
	if n.Timeout > 0 {
		return n.Timeout
	}
	return DefaultTimeout
}

// checkAddr applies the policy to one address the dialer is about to
// connect to.
func (n *Net) checkAddr(ctx context.Context, host string, ap netip.AddrPort) error {
	a := ap.Addr()
	kind := LocalKind(a)
	if kind == "" || (n.treatAsPublic != nil && n.treatAsPublic(ap)) {
		return nil
	}
	if n.AllowLocal && Approved(ctx) {
		return nil
	}
	return &localAddressError{host: host, addr: a.Unmap().String(), kind: kind, allowed: n.AllowLocal}
}

// dialContext resolves the host itself and connects to each address in
// turn. The check runs in the dialer's Control hook on the address actually
// being connected, so a name that resolves differently the second time
// (DNS rebinding) or a redirect to a local address is caught as well.
func (n *Net) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	addrs, err := n.lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no addresses", host)
	}
	var firstErr error
	for _, a := range addrs {
		d := net.Dialer{
			Timeout: 10 * time.Second,
			Control: func(_, connecting string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(connecting)
				if err != nil {
					return fmt.Errorf("dial %s: unexpected address %q", host, connecting)
				}
				return n.checkAddr(ctx, host, ap)
			},
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		if errors.Is(err, ErrLocalAddress) {
			// Refusals win over connection errors: they say what to do.
			return nil, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}

// Client returns an HTTP client that applies the policy to every
// connection (keep-alive is off, so no connection opened for an approved
// call is reused by another), follows at most WebMaxRedirects redirects (http and https
// only), ignores proxy settings from the environment (a proxy would reach
// local addresses for us) and does not decompress bodies itself (the
// caller bounds the decoded size).
func (n *Net) Client() *http.Client {
	t := &http.Transport{
		Proxy:               nil,
		DialContext:         n.dialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		DisableCompression:  true,
		DisableKeepAlives:   true,
	}
	return &http.Client{
		Transport: t,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= MaxRedirects {
				return fmt.Errorf("stopped after %d redirects (last to %s): the page redirects in a loop or too often", MaxRedirects, req.URL.Redacted())
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to %s refused: only http and https are fetched", req.URL.Scheme)
			}
			return nil
		},
	}
}

// LocalTarget reports whether the URL's host is (or resolves to) a local
// or private address, and which, for the approval card. Lookup failures
// count as not local: the request itself will fail or be checked again.
func (n *Net) LocalTarget(ctx context.Context, u *url.URL) (addr, kind string) {
	host := u.Hostname()
	if host == "" {
		return "", ""
	}
	ctx, cancel := context.WithTimeout(ctx, webLocalLookupWait)
	defer cancel()
	addrs, err := n.lookup(ctx, host)
	if err != nil {
		return "", ""
	}
	port := uint16(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		port = uint16(p)
	}
	for _, a := range addrs {
		if n.treatAsPublic != nil && n.treatAsPublic(netip.AddrPortFrom(a, port)) {
			continue
		}
		if k := LocalKind(a); k != "" {
			return a.Unmap().String(), k
		}
	}
	return "", ""
}

// ParseWebURL checks a URL the model gave: http and https only, with a
// host. The error says what to do instead.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("url is empty; give a full http:// or https:// address")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%q is not a valid URL: %v", raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return nil, fmt.Errorf("%q has no scheme; write it as https://%s", raw, strings.TrimPrefix(raw, "//"))
	case "file":
		return nil, fmt.Errorf("file: URLs are not fetched; use the Read tool for files on this computer")
	case "data", "javascript", "blob", "about":
		return nil, fmt.Errorf("%s: URLs are not fetched; WebFetch only fetches http and https pages", strings.ToLower(u.Scheme))
	default:
		return nil, fmt.Errorf("%s: URLs are not fetched; WebFetch only fetches http and https pages", strings.ToLower(u.Scheme))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%q has no host name", raw)
	}
	return u, nil
}
