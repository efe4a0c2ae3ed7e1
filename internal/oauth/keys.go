package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/jarvis-mcp/jarvis/internal/reach"
)

// keysFor returns the issuer's keys that may have signed a token with the
// key id kid (any key when the token names none) and algorithm alg. The
// key set is fetched when none is held or it has expired, and again when
// no key matches, at most once every minRefetch: so a key the issuer
// rotated in is found, and one it dropped stops being accepted.
func (v *Verifier) keysFor(ctx context.Context, kid, alg string) ([]jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	if err := v.holdKeys(ctx, now); err != nil {
		return nil, err
	}
	found := matching(v.keys, kid, alg)
	if len(found) == 0 && now.Sub(v.lastFetch) >= minRefetch {
		v.refresh(ctx, now)
		found = matching(v.keys, kid, alg)
	}
	return found, nil
}

// ready fetches the issuer's key set if none is held, or it has expired,
// and returns an ErrIssuerUnreachable error when none is held after.
func (v *Verifier) ready(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.holdKeys(ctx, v.now())
}

// holdKeys fetches the key set when none is held or it has expired, at
// most once every minRefetch, and says why when none is held. v.mu is
// held.
func (v *Verifier) holdKeys(ctx context.Context, now time.Time) error {
	mayFetch := v.lastFetch.IsZero() || now.Sub(v.lastFetch) >= minRefetch
	if (v.keys == nil || !now.Before(v.expires)) && mayFetch {
		v.refresh(ctx, now)
	}
	if v.keys == nil {
		return &issuerError{issuer: v.issuer, err: v.fetchErr}
	}
	return nil
}

// issuerError is why the issuer's keys could not be had, worded once for
// the client refused and for the server's log: a network failure in
// reach's words, anything else on one line.
type issuerError struct {
	issuer string
	err    error
}

func (e *issuerError) Error() string {
	if why, ok := reach.Why(e.err); ok {
		return "the sign-in server " + e.issuer + " cannot be reached right now: " + why
	}
	// errors.Join puts each discovery document's failure on a line.
	return "the sign-in server " + e.issuer + " cannot be used right now: " + strings.ReplaceAll(e.err.Error(), "\n", "; ")
}

// Is makes every issuerError ErrIssuerUnreachable, which callers branch
// on.
func (e *issuerError) Is(target error) bool { return target == ErrIssuerUnreachable }

func (e *issuerError) Unwrap() error { return e.err }

// refresh fetches the key set. On failure the keys held are kept, so
// that a brief outage of the issuer does not lock every client out.
func (v *Verifier) refresh(ctx context.Context, now time.Time) {
	v.lastFetch = now
	keys, ttl, err := v.fetchKeys(ctx)
	v.fetchErr = err
	if err != nil {
		return
	}
	v.keys, v.expires = keys, now.Add(ttl)
}

func matching(keys []jose.JSONWebKey, kid, alg string) []jose.JSONWebKey {
	var out []jose.JSONWebKey
	for _, k := range keys {
		if (kid == "" || k.KeyID == kid) && (k.Algorithm == "" || k.Algorithm == alg) {
			out = append(out, k)
		}
	}
	return out
}

// fetchKeys finds the key set by discovery (once) and fetches it, with how
// long to keep it.
func (v *Verifier) fetchKeys(ctx context.Context) ([]jose.JSONWebKey, time.Duration, error) {
	if v.jwksURI == "" {
		uri, err := v.discover(ctx)
		if err != nil {
			return nil, 0, err
		}
		v.jwksURI = uri
	}
	body, header, err := v.get(ctx, v.jwksURI)
	if err != nil {
		return nil, 0, err
	}
	keys, err := parseKeySet(body)
	if err != nil {
		return nil, 0, fmt.Errorf("key set %s: %w", v.jwksURI, err)
	}
	return keys, cacheTTL(header.Get("Cache-Control")), nil
}

// discover reads the issuer's metadata: OpenID Connect discovery first,
// then RFC 8414's, which puts the well-known part before the issuer's
// path. The document must name the issuer exactly, as both require.
func (v *Verifier) discover(ctx context.Context) (string, error) {
	u, _ := url.Parse(v.issuer)
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	base := u.Scheme + "://" + u.Host
	var errs []error
	for _, doc := range []string{
		base + path + "/.well-known/openid-configuration",
		base + "/.well-known/oauth-authorization-server" + path,
	} {
		body, _, err := v.get(ctx, doc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := json.Unmarshal(body, &meta); err != nil {
			errs = append(errs, fmt.Errorf("%s is not a JSON object", doc))
			continue
		}
		if meta.Issuer != v.issuer {
			return "", fmt.Errorf("%s names the issuer %q, not %q: give the issuer exactly as the provider writes it", doc, clip(meta.Issuer), v.issuer)
		}
		if meta.JWKSURI == "" {
			return "", fmt.Errorf("%s gives no jwks_uri, so tokens cannot be checked", doc)
		}
		if err := checkURL(meta.JWKSURI); err != nil {
			return "", fmt.Errorf("%s: jwks_uri %q: %w", doc, clip(meta.JWKSURI), err)
		}
		return meta.JWKSURI, nil
	}
	return "", errors.Join(errs...)
}

// get fetches a JSON document of at most maxDocBytes.
func (v *Verifier) get(ctx context.Context, u string) ([]byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("fetch %s: the issuer answered %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("fetch %s: %w", u, err)
	}
	if len(body) > maxDocBytes {
		return nil, nil, fmt.Errorf("fetch %s: the answer is over %d KB, more than any issuer's", u, maxDocBytes>>10)
	}
	return body, resp.Header, nil
}

// parseKeySet reads a JWK set, keeping the public signing keys: a key of
// an unknown type, or one for encryption, is passed over, as RFC 7517
// asks; a symmetric key is never kept.
func parseKeySet(body []byte) ([]jose.JSONWebKey, error) {
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, errors.New("not a JSON key set")
	}
	if len(set.Keys) > maxKeys {
		return nil, fmt.Errorf("it lists %d keys, more than the %d jarvis keeps", len(set.Keys), maxKeys)
	}
	keys := []jose.JSONWebKey{}
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || (k.Use != "" && k.Use != "sig") {
			continue
		}
		if _, symmetric := k.Key.([]byte); symmetric {
			continue
		}
		if pub := k.Public(); pub.Valid() {
			keys = append(keys, pub)
		}
	}
	return keys, nil
}

// cacheTTL is how long to keep a key set fetched with the Cache-Control
// header cc: its max-age within [minKeysTTL, maxKeysTTL], minKeysTTL for
// no-store or no-cache, keysTTL when it says nothing.
func cacheTTL(cc string) time.Duration {
	for _, d := range strings.Split(cc, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		switch {
		case d == "no-store" || d == "no-cache":
			return minKeysTTL
		case strings.HasPrefix(d, "max-age="):
			n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(d, "max-age="), `"`))
			if err != nil || n < 0 {
				continue
			}
			if n > int(maxKeysTTL/time.Second) {
				return maxKeysTTL
			}
			return max(time.Duration(n)*time.Second, minKeysTTL)
		}
	}
	return keysTTL
}
