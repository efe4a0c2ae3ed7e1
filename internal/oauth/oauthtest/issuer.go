// Package oauthtest is a stand-in OAuth issuer on loopback for tests: it
// serves discovery and a key set, and signs tokens with keys made in the
// test.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Key is a signing key with its id and algorithm.
type Key struct {
	ID     string
	Alg    jose.SignatureAlgorithm
	Signer crypto.Signer
}

// NewKey makes a key for alg (ES256 or RS256) with id.
func NewKey(t testing.TB, id string, alg jose.SignatureAlgorithm) Key {
	t.Helper()
	var s crypto.Signer
	var err error
	switch alg {
	case jose.RS256, jose.PS256:
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	}
	if err != nil {
		t.Fatal(err)
	}
	return Key{ID: id, Alg: alg, Signer: s}
}

// Issuer is the stand-in issuer.
type Issuer struct {
	// URL is the issuer's identifier, as tokens name it.
	URL string
	// KeyFetches counts the requests for the key set.
	KeyFetches atomic.Int32

	mu           sync.Mutex
	keys         []Key
	cacheControl string
	oidc         bool
}

// NewIssuer starts an issuer serving OpenID discovery, with one ES256
// key, "k1"; it stops with the test.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	i := &Issuer{keys: []Key{NewKey(t, "k1", jose.ES256)}, oidc: true}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		i.mu.Lock()
		oidc := i.oidc
		i.mu.Unlock()
		switch {
		case r.URL.Path == "/.well-known/openid-configuration" && oidc,
			r.URL.Path == "/.well-known/oauth-authorization-server" && !oidc:
			json.NewEncoder(w).Encode(map[string]string{"issuer": i.URL, "jwks_uri": i.URL + "/keys"})
		case r.URL.Path == "/keys":
			i.KeyFetches.Add(1)
			i.mu.Lock()
			set := jose.JSONWebKeySet{}
			for _, k := range i.keys {
				set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.Signer.Public(), KeyID: k.ID, Algorithm: string(k.Alg), Use: "sig"})
			}
			if i.cacheControl != "" {
				w.Header().Set("Cache-Control", i.cacheControl)
			}
			i.mu.Unlock()
			json.NewEncoder(w).Encode(set)
		default:
			http.NotFound(w, r)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	i.URL = srv.URL
	return i
}

// Key is the key the issuer signs with now.
func (i *Issuer) Key() Key {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.keys[0]
}

// Publish replaces the keys the issuer publishes; the first signs.
func (i *Issuer) Publish(keys ...Key) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = keys
}

// SetCacheControl sets the Cache-Control header of the key set.
func (i *Issuer) SetCacheControl(cc string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.cacheControl = cc
}

// OnlyRFC8414 makes the issuer serve its metadata only at RFC 8414's
// address, as OAuth servers that are not OpenID providers do.
func (i *Issuer) OnlyRFC8414() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.oidc = false
}

// Claims are a token's claims for audience with scope, issued by i, valid
// for an hour from now.
func (i *Issuer) Claims(audience, scope string, now time.Time) map[string]any {
	return map[string]any{
		"iss": i.URL, "sub": "user-1", "aud": audience, "scope": scope,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

// Token signs claims with the issuer's current key.
func (i *Issuer) Token(t testing.TB, claims map[string]any) string {
	t.Helper()
	return Sign(t, i.Key(), claims)
}

// Sign signs claims with k, naming k.ID in the header.
func Sign(t testing.TB, k Key, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("at+jwt").WithHeader(jose.HeaderKey("kid"), k.ID)
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.Alg, Key: k.Signer}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := sig.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
