package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WellKnown is where a resource server's metadata is served (RFC 9728);
// the resource's own path follows it in the path-suffixed form.
const WellKnown = "/.well-known/oauth-protected-resource"

// Resource is the MCP endpoint as an OAuth protected resource: it checks
// the tokens requests bring, says what a refused request lacks in a
// WWW-Authenticate challenge, and serves the metadata that tells a client
// which issuer to get a token from.
type Resource struct {
	verifier  *Verifier
	path      string
	audience  string
	publicURL string
	scopes    []string
}

// ResourceOptions describe the resource beside its issuer.
type ResourceOptions struct {
	// Path is the endpoint's path, such as /mcp.
	Path string
	// Audience is the audience tokens must name; "" is the resource's
	// URL, as the MCP specification has clients ask for.
	Audience string
	// PublicURL is the URL clients reach the server at, such as
	// https://notes.example.com behind a proxy; "" takes it from each
	// request's Host.
	PublicURL string
	// Scopes are what a challenge tells a client to ask for: every scope
	// the server has a use for.
	Scopes []string
}

// NewResource returns the resource whose tokens v checks.
func NewResource(v *Verifier, o ResourceOptions) (*Resource, error) {
	public := strings.TrimSuffix(o.PublicURL, "/")
	if public != "" {
		if err := checkURL(public); err != nil {
			return nil, fmt.Errorf("public URL %q: %w", o.PublicURL, err)
		}
	}
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = []string{ScopeRead}
	}
	return &Resource{verifier: v, path: o.Path, audience: o.Audience, publicURL: public, scopes: scopes}, nil
}

// Prepare fetches the issuer's keys now, so that an issuer that cannot be
// reached, or is misnamed, shows when the server starts rather than at
// the first client's request.
func (rs *Resource) Prepare(ctx context.Context) error {
	return rs.verifier.ready(ctx)
}

// Issuer is the issuer whose tokens are accepted.
func (rs *Resource) Issuer() string { return rs.verifier.Issuer() }

// base is the server's URL as the client of r reaches it.
func (rs *Resource) base(r *http.Request) string {
	if rs.publicURL != "" {
		return rs.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// URL is the resource's identifier: the endpoint's URL as clients reach
// it.
func (rs *Resource) URL(r *http.Request) string { return rs.base(r) + rs.path }

// MetadataURL is where the resource's metadata is, in the path-suffixed
// form RFC 9728 derives from the resource's URL.
func (rs *Resource) MetadataURL(r *http.Request) string { return rs.base(r) + WellKnown + rs.path }

// MetadataPaths are the paths the metadata is served at: the path-suffixed
// form, and the bare one clients also try.
func (rs *Resource) MetadataPaths() []string { return []string{WellKnown, WellKnown + rs.path} }

// Metadata is the protected resource metadata document (RFC 9728,
// section 2).
type Metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ServeHTTP serves the metadata. It says only what any client must be
// told to sign in, so it needs no token and any page may read it.
func (rs *Resource) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed: read this document with GET", http.StatusMethodNotAllowed)
		return
	}
	body, _ := json.Marshal(Metadata{
		Resource:               rs.URL(r),
		AuthorizationServers:   []string{rs.verifier.Issuer()},
		ScopesSupported:        []string{ScopeRead, ScopeWrite},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "jarvis",
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "max-age=3600")
	w.Write(body)
}

// Grant is what a request's token lets it do.
type Grant struct {
	all    bool
	scopes []string
}

// Full is the grant of the static token: everything.
var Full = Grant{all: true}

// Allows reports whether the grant covers scope.
func (g Grant) Allows(scope string) bool { return g.all || slices.Contains(g.scopes, scope) }

// Denial is why a request is refused, as its answer says it.
type Denial struct {
	status int
	code   string // the RFC 6750 error code; "" when no token was sent
	why    string
	scope  string // the scope to ask for
}

// RetryAfter is how long a client refused because the issuer cannot be
// reached is told to wait before it tries again.
const RetryAfter = 30 * time.Second

// unavailable is the denial of a request while the issuer cannot be
// reached (err says why): access tokens cannot be checked.
func unavailable(err error) *Denial {
	return &Denial{status: http.StatusServiceUnavailable,
		why: fmt.Sprintf("%v, so access tokens cannot be checked; try again in %d seconds", err, int(RetryAfter/time.Second))}
}

// Check checks the access token a request sent ("" when it sent none).
// While the issuer cannot be reached, every request is refused with 503
// saying so: a client sent to sign in there would fail, with an error of
// its own that does not say why.
func (rs *Resource) Check(r *http.Request, token string) (Grant, *Denial) {
	if token == "" {
		if err := rs.verifier.ready(r.Context()); err != nil {
			return Grant{}, unavailable(err)
		}
		return Grant{}, &Denial{status: http.StatusUnauthorized,
			why: "this server takes access tokens from " + rs.verifier.Issuer() + ": send Authorization: Bearer <token>; " +
				"the resource metadata at " + rs.MetadataURL(r) + " tells a client where to get one"}
	}
	aud := rs.audience
	if aud == "" {
		aud = rs.URL(r)
	}
	c, err := rs.verifier.Verify(r.Context(), token, aud)
	switch {
	case err == nil:
		return Grant{scopes: c.Scopes}, nil
	case errors.Is(err, ErrIssuerUnreachable):
		return Grant{}, unavailable(err)
	}
	return Grant{}, &Denial{status: http.StatusUnauthorized, code: "invalid_token", why: err.Error()}
}

// Need refuses a grant without scope, or returns nil.
func (rs *Resource) Need(g Grant, scope string) *Denial {
	if g.Allows(scope) {
		return nil
	}
	return &Denial{status: http.StatusForbidden, code: "insufficient_scope", scope: scope,
		why: "the token does not grant " + scope + ", which this request needs; sign in again and allow it"}
}

// Deny answers a refused request: the status, a WWW-Authenticate
// challenge naming the metadata and the scopes to ask for (and the error,
// when a token was sent), and the reason in plain words.
func (rs *Resource) Deny(w http.ResponseWriter, r *http.Request, d *Denial) {
	if d.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
		http.Error(w, "Service Unavailable: "+d.why, d.status)
		return
	}
	scopes := rs.scopes
	if d.scope != "" && !slices.Contains(scopes, d.scope) {
		scopes = append(slices.Clone(scopes), d.scope)
	}
	challenge := fmt.Sprintf(`Bearer resource_metadata="%s", scope="%s"`, quotable(rs.MetadataURL(r)), strings.Join(scopes, " "))
	if d.code != "" {
		challenge += fmt.Sprintf(`, error="%s", error_description="%s"`, d.code, quotable(d.why))
	}
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, http.StatusText(d.status)+": "+d.why, d.status)
}

// quotable is s as a quoted-string of a challenge may hold it: printable
// ASCII without quotes or backslashes, as RFC 6750 allows in
// error_description.
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\' || r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
}
