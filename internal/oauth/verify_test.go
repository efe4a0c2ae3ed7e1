package oauth_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/jarvis-mcp/jarvis/internal/oauth"
	"github.com/jarvis-mcp/jarvis/internal/oauth/oauthtest"
)

const audience = "http://127.0.0.1:8765/mcp"

// clock is a settable clock for the verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newVerifier(t *testing.T, iss *oauthtest.Issuer) (*oauth.Verifier, *clock) {
	t.Helper()
	c := &clock{t: time.Now()}
	v, err := oauth.NewVerifier(iss.URL, oauth.Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return v, c
}

// unsigned is a token with alg none: header and claims, no signature.
func unsigned(t *testing.T, claims map[string]any) string {
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"none","typ":"JWT","kid":"k1"}`)) + "." + enc(b) + "."
}

// hmacWithPublicKey is the old attack on RS/ES verifiers: a token signed
// with HS256 whose secret is the issuer's public key, as PEM.
func hmacWithPublicKey(t *testing.T, k oauthtest.Key, claims map[string]any) string {
	der, err := x509.MarshalPKIXPublicKey(k.Signer.Public())
	if err != nil {
		t.Fatal(err)
	}
	secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: secret}, (&jose.SignerOptions{}).WithHeader("kid", k.ID))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	sig, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := sig.CompactSerialize()
	return out
}

func TestVerify(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	now := time.Now()
	with := func(change func(map[string]any)) map[string]any {
		c := iss.Claims(audience, "vault:read vault:write", now)
		change(c)
		return c
	}
	forger := oauthtest.NewKey(t, "k1", jose.ES256) // the issuer's kid, another key
	for _, tc := range []struct {
		name   string
		token  func() string
		scopes []string
		want   string // part of the refusal; "" when accepted
	}{
		{"valid", func() string { return iss.Token(t, with(func(map[string]any) {})) }, []string{"vault:read", "vault:write"}, ""},
		{"scp list", func() string {
			return iss.Token(t, with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []string{"vault:read"} }))
		}, []string{"vault:read"}, ""},
		{"scp string", func() string {
			return iss.Token(t, with(func(c map[string]any) { delete(c, "scope"); c["scp"] = "vault:read vault:write" }))
		}, []string{"vault:read", "vault:write"}, ""},
		{"audience list", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["aud"] = []string{"https://other.example/", audience} }))
		}, []string{"vault:read", "vault:write"}, ""},
		{"expired", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["exp"] = now.Add(-2 * time.Minute).Unix() }))
		}, nil, "has expired"},
		{"expired within the leeway", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["exp"] = now.Add(-30 * time.Second).Unix() }))
		}, []string{"vault:read", "vault:write"}, ""},
		{"not yet valid", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["nbf"] = now.Add(5 * time.Minute).Unix() }))
		}, nil, "not valid yet"},
		{"no expiry", func() string { return iss.Token(t, with(func(c map[string]any) { delete(c, "exp") })) }, nil, "no expiry"},
		{"wrong audience", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["aud"] = "https://other.example/mcp" }))
		}, nil, "not meant for this server"},
		{"no audience", func() string { return iss.Token(t, with(func(c map[string]any) { delete(c, "aud") })) }, nil, "not meant for this server"},
		{"wrong issuer", func() string {
			return iss.Token(t, with(func(c map[string]any) { c["iss"] = iss.URL + "/" }))
		}, nil, "was issued by"},
		{"forged signature", func() string { return oauthtest.Sign(t, forger, with(func(map[string]any) {})) }, nil, "signature does not match"},
		{"unknown key", func() string {
			return oauthtest.Sign(t, oauthtest.NewKey(t, "k9", jose.ES256), with(func(map[string]any) {}))
		}, nil, "a key the issuer does not publish"},
		{"alg none", func() string { return unsigned(t, with(func(map[string]any) {})) }, nil, "algorithm jarvis accepts"},
		{"HMAC with the public key", func() string { return hmacWithPublicKey(t, iss.Key(), with(func(map[string]any) {})) }, nil, "algorithm jarvis accepts"},
		{"not a JWT", func() string { return "0123456789abcdef0123456789abcdef" }, nil, "not a signed JWT"},
		{"too long", func() string { return strings.Repeat("a", 20000) + ".b.c" }, nil, "longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := newVerifier(t, iss)
			c, err := v.Verify(context.Background(), tc.token(), audience)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !slices.Equal(c.Scopes, tc.scopes) || c.Subject != "user-1" {
					t.Errorf("claims %+v, want scopes %v of user-1", c, tc.scopes)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !oauth.IsInvalidToken(err) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
}

// TestVerifyRSA checks a token of an RSA key, the kind most providers use.
func TestVerifyRSA(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	iss.Publish(oauthtest.NewKey(t, "rsa-1", jose.RS256))
	v, _ := newVerifier(t, iss)
	if _, err := v.Verify(context.Background(), iss.Token(t, iss.Claims(audience, "vault:read", time.Now())), audience); err != nil {
		t.Fatal(err)
	}
}

// TestKeyRotation: the issuer switches keys. A token of the new key is
// refused only until the key set may be fetched again (a made-up kid
// must not make a request each time), then accepted; the old key is
// dropped with the set it was in.
func TestKeyRotation(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	v, clk := newVerifier(t, iss)
	ctx := context.Background()
	old := iss.Token(t, iss.Claims(audience, "vault:read", clk.now()))
	if _, err := v.Verify(ctx, old, audience); err != nil {
		t.Fatal(err)
	}
	iss.Publish(oauthtest.NewKey(t, "k2", jose.ES256))
	clk.add(10 * time.Second)
	next := iss.Token(t, iss.Claims(audience, "vault:read", clk.now()))
	for range 3 {
		if _, err := v.Verify(ctx, next, audience); err == nil {
			t.Fatal("a new key was fetched sooner than once a minute")
		}
	}
	if n := iss.KeyFetches.Load(); n != 1 {
		t.Fatalf("the key set was fetched %d times, want once", n)
	}
	clk.add(time.Minute)
	if _, err := v.Verify(ctx, next, audience); err != nil {
		t.Fatalf("the new key is not accepted after a refetch: %v", err)
	}
	if n := iss.KeyFetches.Load(); n != 2 {
		t.Fatalf("the key set was fetched %d times, want twice", n)
	}
	if _, err := v.Verify(ctx, old, audience); err == nil || !strings.Contains(err.Error(), "does not publish") {
		t.Fatalf("a token of the dropped key: got %v, want it refused", err)
	}
}

// TestKeysExpire: the key set is fetched again once the issuer's
// Cache-Control max-age has passed, and not before.
func TestKeysExpire(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	iss.SetCacheControl("public, max-age=600")
	v, clk := newVerifier(t, iss)
	ctx := context.Background()
	check := func(fetches int32) {
		t.Helper()
		if _, err := v.Verify(ctx, iss.Token(t, iss.Claims(audience, "vault:read", clk.now())), audience); err != nil {
			t.Fatal(err)
		}
		if n := iss.KeyFetches.Load(); n != fetches {
			t.Fatalf("the key set was fetched %d times, want %d", n, fetches)
		}
	}
	check(1)
	clk.add(590 * time.Second)
	check(1)
	clk.add(20 * time.Second)
	check(2)
}

// TestDiscoveryRFC8414: an issuer that is not an OpenID provider is found
// at RFC 8414's address.
func TestDiscoveryRFC8414(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	iss.OnlyRFC8414()
	v, _ := newVerifier(t, iss)
	if _, err := v.Verify(context.Background(), iss.Token(t, iss.Claims(audience, "vault:read", time.Now())), audience); err != nil {
		t.Fatal(err)
	}
}

// TestIssuerMismatch: discovery that names another issuer is not trusted,
// and says so.
func TestIssuerMismatch(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	v, err := oauth.NewVerifier(iss.URL+"/", oauth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), iss.Token(t, iss.Claims(audience, "vault:read", time.Now())), audience)
	if !errors.Is(err, oauth.ErrIssuerUnreachable) || !strings.Contains(err.Error(), "exactly as the provider writes it") {
		t.Fatalf("got %v", err)
	}
}

func TestNewVerifierURL(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		ok     bool
	}{
		{"https://tenant.auth0.com/", true},
		{"http://127.0.0.1:8080/realms/jarvis", true},
		{"http://localhost:8080", true},
		{"http://login.example.com/", false},
		{"login.example.com", false},
		{"https://login.example.com/?x=1", false},
	} {
		_, err := oauth.NewVerifier(tc.issuer, oauth.Options{})
		if (err == nil) != tc.ok {
			t.Errorf("%s: got %v, want ok %v", tc.issuer, err, tc.ok)
		}
	}
}

// FuzzVerify feeds the token parsing path anything: it must refuse without
// panicking, and accept nothing that the issuer did not sign.
func FuzzVerify(f *testing.F) {
	iss := oauthtest.NewIssuer(f)
	now := time.Now()
	good := iss.Token(f, iss.Claims(audience, "vault:read", now))
	f.Add(good)
	f.Add(good[:len(good)-5])
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add(strings.Replace(good, ".", "..", 1))
	v, err := oauth.NewVerifier(iss.URL, oauth.Options{Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := v.Verify(context.Background(), token, audience)
		switch {
		case err != nil && !oauth.IsInvalidToken(err):
			t.Fatalf("%q: %v, not a refusal of the token", token, err)
		case err == nil && (c.Subject != "user-1" || !slices.Equal(c.Scopes, []string{"vault:read"})):
			// Only what the issuer signed may pass.
			t.Fatalf("accepted %q with claims %+v", token, c)
		}
	})
}
