package oauth_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/oauth"
	"github.com/jarvis-mcp/jarvis/internal/oauth/oauthtest"
)

func newResource(t *testing.T, o oauth.ResourceOptions) (*oauth.Resource, *oauthtest.Issuer) {
	t.Helper()
	iss := oauthtest.NewIssuer(t)
	v, err := oauth.NewVerifier(iss.URL, oauth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o.Path = "/mcp"
	rs, err := oauth.NewResource(v, o)
	if err != nil {
		t.Fatal(err)
	}
	return rs, iss
}

func TestMetadata(t *testing.T) {
	for _, tc := range []struct {
		name, public, host, want string
	}{
		{"from the request", "", "127.0.0.1:8765", "http://127.0.0.1:8765/mcp"},
		{"public URL", "https://notes.example.com/", "127.0.0.1:8765", "https://notes.example.com/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, iss := newResource(t, oauth.ResourceOptions{PublicURL: tc.public})
			for _, path := range []string{oauth.WellKnown, oauth.WellKnown + "/mcp"} {
				rec := httptest.NewRecorder()
				req := httptest.NewRequest(http.MethodGet, "http://"+tc.host+path, nil)
				rs.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
					t.Fatalf("%s: %d %s", path, rec.Code, rec.Header().Get("Content-Type"))
				}
				var m oauth.Metadata
				if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
					t.Fatal(err)
				}
				if m.Resource != tc.want || !slices.Equal(m.AuthorizationServers, []string{iss.URL}) ||
					!slices.Equal(m.ScopesSupported, []string{"vault:read", "vault:write"}) || !slices.Equal(m.BearerMethodsSupported, []string{"header"}) {
					t.Errorf("%s: %+v", path, m)
				}
			}
		})
	}
}

// challenge splits a WWW-Authenticate Bearer challenge into its
// parameters.
func challenge(t *testing.T, h string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		t.Fatalf("challenge %q is not Bearer", h)
	}
	out := map[string]string{}
	for rest != "" {
		k, v, ok := strings.Cut(rest, `="`)
		if !ok {
			t.Fatalf("challenge %q", h)
		}
		v, rest, ok = strings.Cut(v, `"`)
		if !ok {
			t.Fatalf("challenge %q", h)
		}
		out[k] = v
		rest = strings.TrimPrefix(rest, ", ")
	}
	return out
}

func TestChallenges(t *testing.T) {
	rs, iss := newResource(t, oauth.ResourceOptions{Scopes: []string{oauth.ScopeRead, oauth.ScopeWrite}})
	url := "http://127.0.0.1:8765/mcp"
	now := time.Now()
	readOnly := iss.Token(t, iss.Claims(url, "vault:read", now))
	expired := iss.Claims(url, "vault:read", now)
	expired["exp"] = now.Add(-time.Hour).Unix()
	for _, tc := range []struct {
		name   string
		token  string
		scope  string
		status int
		want   map[string]string
	}{
		{"no token", "", oauth.ScopeRead, http.StatusUnauthorized, map[string]string{}},
		{"expired", iss.Token(t, expired), oauth.ScopeRead, http.StatusUnauthorized,
			map[string]string{"error": "invalid_token", "error_description": "the token has expired"}},
		{"wrong audience", iss.Token(t, iss.Claims("https://other.example/mcp", "vault:read", now)), oauth.ScopeRead, http.StatusUnauthorized,
			map[string]string{"error": "invalid_token", "error_description": "the token is not meant for this server: its audience does not include '" + url + "'"}},
		{"read scope for reading", readOnly, oauth.ScopeRead, http.StatusOK, nil},
		{"read scope for writing", readOnly, oauth.ScopeWrite, http.StatusForbidden, map[string]string{"error": "insufficient_scope"}},
		{"no scope", iss.Token(t, iss.Claims(url, "", now)), oauth.ScopeRead, http.StatusForbidden, map[string]string{"error": "insufficient_scope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, url, nil)
			g, d := rs.Check(req, tc.token)
			if d == nil {
				d = rs.Need(g, tc.scope)
			}
			if d == nil {
				if tc.status != http.StatusOK {
					t.Fatal("let in")
				}
				return
			}
			rec := httptest.NewRecorder()
			rs.Deny(rec, req, d)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			got := challenge(t, rec.Header().Get("WWW-Authenticate"))
			if got["resource_metadata"] != "http://127.0.0.1:8765/.well-known/oauth-protected-resource/mcp" || got["scope"] != "vault:read vault:write" {
				t.Errorf("challenge %v", got)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			if _, ok := got["error"]; ok != (len(tc.want) > 0) {
				t.Errorf("challenge %v: error given %v, want %v", got, ok, len(tc.want) > 0)
			}
		})
	}
}

// TestIssuerUnreachable: while the issuer cannot be reached, a request
// with a token or without one is answered 503 with Retry-After and a
// body saying, in words and on one line, that the sign-in server cannot
// be reached right now; Prepare says the same for the log. A request
// without a token was sent to sign in there (401), and the reason given
// was Go's error chain, over several lines ("dial tcp ...: connect:
// connection refused").
func TestIssuerUnreachable(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	issuer := gone.URL + "/"
	gone.Close()
	v, err := oauth.NewVerifier(issuer, oauth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := oauth.NewResource(v, oauth.ResourceOptions{Path: "/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	want := "the sign-in server " + issuer + " cannot be reached right now: the connection was refused"
	err = rs.Prepare(t.Context())
	if !errors.Is(err, oauth.ErrIssuerUnreachable) || !strings.HasPrefix(err.Error(), want) || strings.ContainsAny(err.Error(), "\n") || strings.Contains(err.Error(), "dial tcp") {
		t.Errorf("Prepare: %q; want ErrIssuerUnreachable, one line starting %q", err, want)
	}
	other := oauthtest.NewIssuer(t)
	for name, token := range map[string]string{
		"no token": "",
		"a token":  other.Token(t, other.Claims("http://127.0.0.1:8765/mcp", "vault:read", time.Now())),
	} {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:8765/mcp", nil)
		rec := httptest.NewRecorder()
		_, d := rs.Check(req, token)
		if d == nil {
			t.Errorf("%s: let in", name)
			continue
		}
		rs.Deny(rec, req, d)
		body := strings.TrimSuffix(rec.Body.String(), "\n")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "30" ||
			!strings.Contains(body, want+", so access tokens cannot be checked; try again in 30 seconds") ||
			strings.Contains(body, "\n") || strings.Contains(body, "dial tcp") {
			t.Errorf("%s: HTTP %d, Retry-After %q: %q; want 503, 30 and %q on one line", name, rec.Code, rec.Header().Get("Retry-After"), body, want)
		}
	}
}
