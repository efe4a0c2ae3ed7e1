package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/oauth"
	"github.com/jarvis-mcp/jarvis/internal/oauth/oauthtest"
)

func oauthServer(t *testing.T, token string) (*oauthtest.Issuer, string) {
	t.Helper()
	iss := oauthtest.NewIssuer(t)
	opts, err := newHTTPOptions(token, oauthSettings{issuer: iss.URL}, true, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, url := serveTest(t, opts)
	return iss, url
}

func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

const editNoteBody = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"edit-note","arguments":{"path":"Note.md","etag":"x","edits":[]}}}`

// TestOAuthHTTP: with an issuer, /mcp lets in a request whose access
// token the issuer signed for this server with the scope the request
// needs, and otherwise answers 401 or 403 with a challenge that names the
// resource metadata.
func TestOAuthHTTP(t *testing.T) {
	iss, url := oauthServer(t, "")
	base := strings.TrimSuffix(url, "/mcp")
	now := time.Now()
	token := func(aud, scope string) string { return iss.Token(t, iss.Claims(aud, scope, now)) }
	expired := iss.Claims(url, "vault:read", now)
	expired["exp"] = now.Add(-time.Hour).Unix()
	for _, tc := range []struct {
		name   string
		body   string
		header map[string]string
		status int
		want   string // in WWW-Authenticate
	}{
		{"no token", initializeBody, nil, http.StatusUnauthorized, `resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp", scope="vault:read vault:write"`},
		{"valid", initializeBody, bearer(token(url, "vault:read")), http.StatusOK, ""},
		{"bearer in lower case", initializeBody, map[string]string{"Authorization": "bearer " + token(url, "vault:read")}, http.StatusOK, ""},
		{"expired", initializeBody, bearer(iss.Token(t, expired)), http.StatusUnauthorized, `error="invalid_token", error_description="the token has expired"`},
		{"wrong audience", initializeBody, bearer(token("https://other.example/mcp", "vault:read")), http.StatusUnauthorized, `error="invalid_token"`},
		{"no scope", initializeBody, bearer(token(url, "")), http.StatusForbidden, `error="insufficient_scope"`},
		{"write tool with vault:read", editNoteBody, bearer(token(url, "vault:read")), http.StatusForbidden, `error="insufficient_scope"`},
		// Past the scope check the server answers (with no writable
		// vault, that it has no such tool): no session is needed.
		{"write tool with vault:write", editNoteBody, bearer(token(url, "vault:read vault:write")), http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.body, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.Contains(got, tc.want) {
				t.Errorf("WWW-Authenticate %q, want %q in it", got, tc.want)
			}
		})
	}

	resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m oauth.Metadata
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if m.Resource != url || len(m.AuthorizationServers) != 1 || m.AuthorizationServers[0] != iss.URL {
		t.Errorf("metadata %+v", m)
	}
}

// TestOAuthWithStaticToken: with both set, either the static token or an
// access token lets a request in.
func TestOAuthWithStaticToken(t *testing.T) {
	const static = "0123456789abcdef0123"
	iss, url := oauthServer(t, static)
	for name, h := range map[string]map[string]string{
		"static token": bearer(static),
		"access token": bearer(iss.Token(t, iss.Claims(url, "vault:read", time.Now()))),
	} {
		if resp, body := post(t, url, initializeBody, h); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d: %s", name, resp.StatusCode, body)
		}
	}
	if resp, _ := post(t, url, initializeBody, bearer("not-the-token-at-all")); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: HTTP %d", resp.StatusCode)
	}
}

func TestOAuthSettings(t *testing.T) {
	const issuer = "https://login.example.com/"
	for _, tc := range []struct {
		name        string
		auth        oauthSettings
		token       string
		allowRemote bool
		want        string // in the error; "" for none
	}{
		{"remote with OAuth and a public URL", oauthSettings{issuer: issuer, publicURL: "https://notes.example.com"}, "", true, ""},
		{"remote with OAuth and an audience", oauthSettings{issuer: issuer, audience: "api://jarvis"}, "", true, ""},
		{"remote with OAuth alone", oauthSettings{issuer: issuer}, "", true, "needs --public-url, the https URL clients reach this server at (such as https://notes.example.com), or --oauth-audience"},
		{"remote with neither", oauthSettings{}, "", true, "requires OAuth or a token"},
		{"plain http issuer", oauthSettings{issuer: "http://login.example.com/"}, "", false, "use https"},
		{"public URL without issuer", oauthSettings{publicURL: "https://notes.example.com"}, "", false, "go with --oauth-issuer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newHTTPOptions(tc.token, tc.auth, false, tc.allowRemote, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, errUsage) {
				t.Fatalf("got %v, want a usage error saying %q", err, tc.want)
			}
		})
	}
}

// TestPublicURLHost: behind a proxy that passes the public Host on, the
// host of --public-url is let in, as loopback names are, and no other.
func TestPublicURLHost(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	opts, err := newHTTPOptions("", oauthSettings{issuer: iss.URL, publicURL: "https://notes.example.com"}, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, url := serveTest(t, opts)
	for host, want := range map[string]int{"notes.example.com": http.StatusUnauthorized, "evil.example.com": http.StatusForbidden} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: HTTP %d, want %d", host, resp.StatusCode, want)
		}
		if want == http.StatusUnauthorized && !strings.Contains(resp.Header.Get("WWW-Authenticate"), `"https://notes.example.com/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("challenge %q does not name the public metadata URL", resp.Header.Get("WWW-Authenticate"))
		}
	}
}

// TestMCPOAuthFromEnvironment: JARVIS_OAUTH_ISSUER turns OAuth on for
// jarvis mcp --http, as --oauth-issuer does.
func TestMCPOAuthFromEnvironment(t *testing.T) {
	iss := oauthtest.NewIssuer(t)
	url, _ := startHTTP(t, map[string]string{config.EnvOAuthIssuer: iss.URL})
	if resp, _ := post(t, url, initializeBody, nil); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Fatalf("no token: HTTP %d, %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if resp, body := post(t, url, initializeBody, bearer(iss.Token(t, iss.Claims(url, "vault:read", time.Now())))); resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
	}
}
