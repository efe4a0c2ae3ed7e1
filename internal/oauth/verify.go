// Package oauth makes `jarvis mcp --http` an OAuth 2.0 resource server: it
// accepts access tokens that an authorization server (the issuer) signed,
// checked against the keys the issuer publishes, and tells clients where
// to get one (RFC 9728). jarvis never issues tokens itself.
package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// The scopes jarvis asks of a token: reading for every tool but the write
// tools, writing for those.
const (
	ScopeRead  = "vault:read"
	ScopeWrite = "vault:write"
)

// Bounds on what a client or an issuer can make jarvis read or keep.
const (
	// maxTokenBytes bounds an access token: real ones are a few KB.
	maxTokenBytes = 16 << 10
	// maxDocBytes bounds the issuer's discovery document and key set.
	maxDocBytes = 256 << 10
	// maxKeys bounds the keys of a key set kept: issuers publish a few
	// (the current one and the next or last).
	maxKeys = 64
	// fetchTimeout bounds one request to the issuer.
	fetchTimeout = 10 * time.Second
	// leeway is the clock difference allowed between jarvis and the
	// issuer when exp and nbf are checked.
	leeway = time.Minute
	// keysTTL is how long keys are kept when the issuer's answer does
	// not say (Cache-Control max-age); minKeysTTL and maxKeysTTL clamp
	// what it says.
	keysTTL    = time.Hour
	minKeysTTL = 5 * time.Minute
	maxKeysTTL = 24 * time.Hour
	// minRefetch is how often, at most, a token naming a key jarvis does
	// not hold makes it fetch the key set again: a stream of made-up key
	// ids must not become a stream of requests to the issuer.
	minRefetch = time.Minute
)

// algorithms are the signature algorithms accepted: asymmetric only, so
// that neither "none" nor an HMAC keyed with a public key passes.
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512,
	jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512,
	jose.EdDSA,
}

// ErrIssuerUnreachable means the issuer's keys could not be fetched, so no
// token can be checked for now; the request may be tried again later.
var ErrIssuerUnreachable = errors.New("the issuer's signing keys could not be fetched")

// Options tune a Verifier; the zero value is what jarvis runs with.
type Options struct {
	// Client makes the requests to the issuer; nil uses one with
	// fetchTimeout that follows only https (or loopback) redirects.
	Client *http.Client
	// Now is the clock tokens are checked against; nil is time.Now.
	Now func() time.Time
}

// Claims is what a valid token says.
type Claims struct {
	Subject string
	Scopes  []string
	Expiry  time.Time
}

// Verifier checks access tokens signed by one issuer against the keys the
// issuer publishes, found by discovery and kept until they expire or a
// token names a key not among them.
type Verifier struct {
	issuer string
	client *http.Client
	now    func() time.Time

	mu        sync.Mutex
	jwksURI   string
	keys      []jose.JSONWebKey
	expires   time.Time // when keys must be fetched again
	lastFetch time.Time // when a fetch was last tried, kept or not
	fetchErr  error     // why the last fetch failed, nil when it did not
}

// NewVerifier returns a Verifier for issuer, which must be an https URL
// (http is let through for loopback only, for testing a local issuer).
// Nothing is fetched until a token is checked.
func NewVerifier(issuer string, opts Options) (*Verifier, error) {
	if err := checkURL(issuer); err != nil {
		return nil, fmt.Errorf("issuer %q: %w", issuer, err)
	}
	v := &Verifier{issuer: issuer, client: opts.Client, now: opts.Now}
	if v.client == nil {
		v.client = &http.Client{Timeout: fetchTimeout, CheckRedirect: safeRedirect}
	}
	if v.now == nil {
		v.now = time.Now
	}
	return v, nil
}

// Issuer is the issuer URL tokens must name, as given.
func (v *Verifier) Issuer() string { return v.issuer }

// checkURL accepts an absolute https URL, or an http one whose host is
// loopback, without query or fragment.
func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return errors.New("give an absolute URL such as https://login.example.com/")
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("give the URL without a query, fragment or user name")
	case u.Scheme == "http" && !loopback(u.Hostname()):
		return errors.New("use https: tokens and keys travel over it, and plain http is accepted only on this machine (localhost)")
	}
	return nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// safeRedirect follows at most three redirects, and none to plain http
// off this machine.
func safeRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 3 {
		return errors.New("too many redirects")
	}
	return checkURL(req.URL.String())
}

// tokenError is why a token is refused, worded for the client.
type tokenError struct{ why string }

func (e *tokenError) Error() string { return e.why }

func refuse(format string, args ...any) error {
	return &tokenError{fmt.Sprintf(format, args...)}
}

// IsInvalidToken reports whether err says the token itself was refused
// (as opposed to the issuer being out of reach).
func IsInvalidToken(err error) bool {
	var te *tokenError
	return errors.As(err, &te)
}

// Verify checks token: signed by one of the issuer's keys with an
// asymmetric algorithm, issued by the issuer, for audience, and valid now.
// An error it returns is either a refusal (IsInvalidToken), worded for the
// client, or ErrIssuerUnreachable.
func (v *Verifier) Verify(ctx context.Context, token, audience string) (Claims, error) {
	if len(token) > maxTokenBytes {
		return Claims{}, refuse("the token is longer than %d KB", maxTokenBytes>>10)
	}
	if strings.Count(token, ".") != 2 {
		return Claims{}, refuse("the token is not a signed JWT")
	}
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil || len(tok.Headers) != 1 {
		return Claims{}, refuse("the token is not a JWT signed with an algorithm jarvis accepts (RS256, PS256, ES256, EdDSA and their longer forms)")
	}
	h := tok.Headers[0]
	keys, err := v.keysFor(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return Claims{}, err
	}
	if len(keys) == 0 {
		return Claims{}, refuse("the token was signed with a key the issuer does not publish")
	}
	var payload json.RawMessage
	signed := false
	for _, k := range keys {
		if tok.Claims(k.Key, &payload) == nil {
			signed = true
			break
		}
	}
	if !signed {
		return Claims{}, refuse("the token's signature does not match the issuer's key")
	}
	return v.check(payload, audience)
}

// check reads a verified token's claims and checks them.
func (v *Verifier) check(payload []byte, audience string) (Claims, error) {
	var std jwt.Claims
	var extra struct {
		Scope *string         `json:"scope"`
		Scp   json.RawMessage `json:"scp"`
	}
	if json.Unmarshal(payload, &std) != nil || json.Unmarshal(payload, &extra) != nil {
		return Claims{}, refuse("the token's claims cannot be read")
	}
	if std.Expiry == nil {
		return Claims{}, refuse("the token has no expiry time (exp)")
	}
	err := std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{audience}, Time: v.now()}, leeway)
	switch {
	case errors.Is(err, jwt.ErrInvalidIssuer):
		return Claims{}, refuse("the token was issued by %q, not by %q", clip(std.Issuer), v.issuer)
	case errors.Is(err, jwt.ErrInvalidAudience):
		return Claims{}, refuse("the token is not meant for this server: its audience does not include %q", audience)
	case errors.Is(err, jwt.ErrExpired):
		return Claims{}, refuse("the token has expired")
	case errors.Is(err, jwt.ErrNotValidYet), errors.Is(err, jwt.ErrIssuedInTheFuture):
		return Claims{}, refuse("the token is not valid yet")
	case err != nil:
		return Claims{}, refuse("the token's claims are not valid")
	}
	c := Claims{Subject: std.Subject, Expiry: std.Expiry.Time()}
	if extra.Scope != nil {
		c.Scopes = strings.Fields(*extra.Scope)
	}
	if len(extra.Scp) > 0 {
		// scp is a list in most issuers' tokens, a space-separated
		// string in some (Microsoft's).
		var list []string
		var one string
		switch {
		case json.Unmarshal(extra.Scp, &list) == nil:
			c.Scopes = append(c.Scopes, list...)
		case json.Unmarshal(extra.Scp, &one) == nil:
			c.Scopes = append(c.Scopes, strings.Fields(one)...)
		}
	}
	return c, nil
}

// clip is a value from a token short enough to quote back.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}
