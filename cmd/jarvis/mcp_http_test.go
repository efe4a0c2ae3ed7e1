package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

var servingURL = regexp.MustCompile(`url=(http://\S+/mcp)`)

// startHTTP runs `jarvis mcp --http 127.0.0.1:0` with args and vars on a
// small vault until the test ends, and returns the URL it serves and its
// log.
func startHTTP(t *testing.T, vars map[string]string, args ...string) (string, *sharedtest.SyncBuffer) {
	t.Helper()
	vault := t.TempDir()
	sharedtest.WriteFile(t, vault, "Note.md", "# Note\nSome text.\n")
	home := t.TempDir()
	var stdout, stderr sharedtest.SyncBuffer
	e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return vars[k]
	}}
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan struct{})
	var code int
	args = append([]string{"mcp", "--http", "127.0.0.1:0", "--vault", vault, "--db", t.TempDir() + "/j.db", "--watch=false"}, args...)
	go func() { code = run(ctx, e, args); close(exited) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Error("jarvis mcp did not stop")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], &stderr
		}
		select {
		case <-exited:
			t.Fatalf("jarvis mcp exited with %d before serving: %s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("jarvis mcp is not serving after 10s: %s", stderr.String())
	return "", nil
}

// TestMCPHTTPOtherPathsSayWhereMCPIs: a browser or a client pointed at
// the server's address without /mcp is told where MCP is served.
func TestMCPHTTPOtherPathsSayWhereMCPIs(t *testing.T) {
	url, _ := startHTTP(t, nil)
	root := strings.TrimSuffix(url, "/mcp")
	for _, path := range []string{"/", "/sse"} {
		resp, err := http.Get(root + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "POST to /mcp ("+url+")") {
			t.Errorf("GET %s: HTTP %d %q; want 404 naming %s", path, resp.StatusCode, body, url)
		}
	}
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// post sends one JSON-RPC message to url with the given headers and
// returns the response, its body read.
func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestMCPAllowRemoteRequiresAToken: --allow-remote with no token, or one
// too short to resist guessing, refuses to start with a usage error that
// says how to make one; nothing is served meanwhile.
func TestMCPAllowRemoteRequiresAToken(t *testing.T) {
	vault := t.TempDir()
	for _, tt := range []struct {
		name, token, want string
	}{
		{"no token", "", "export JARVIS_HTTP_TOKEN=$(openssl rand -hex 32)"},
		{"short token", "secret", "JARVIS_HTTP_TOKEN has 6 characters; with --allow-remote it needs at least 16"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, getenv: func(k string) string {
				if k == envHTTPToken {
					return tt.token
				}
				return ""
			}}
			// On loopback, so that a regression serves no network: the
			// rule is --allow-remote's, whatever the address.
			code := run(ctx, e, []string{"mcp", "--http", "127.0.0.1:0", "--allow-remote", "--vault", vault, "--db", t.TempDir() + "/j.db"})
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
			if ctx.Err() != nil {
				t.Fatal("jarvis mcp served until the test gave up")
			}
		})
	}
}

// TestMCPOrigins: browser pages are let in from the server's own origin
// and those given with --allow-origin, and from nowhere else, not even
// another port of the same machine; requests without Origin are let in.
// With --allow-remote the same holds.
func TestMCPOrigins(t *testing.T) {
	const token = "0123456789abcdef0123"
	for _, mode := range []struct {
		name string
		vars map[string]string
		args []string
	}{
		{"loopback", nil, []string{"--allow-origin", "http://App.example:3000"}},
		{"allow-remote", map[string]string{envHTTPToken: token}, []string{"--allow-remote", "--allow-origin", "http://app.example:3000"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			url, _ := startHTTP(t, mode.vars, mode.args...)
			host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
			_, port, _ := net.SplitHostPort(host)
			otherPort := "1"
			if port == otherPort {
				otherPort = "2"
			}
			for _, tt := range []struct {
				origin string
				want   int
			}{
				{"", http.StatusOK},
				{"http://" + host, http.StatusOK},
				{"http://localhost:" + port, http.StatusOK},
				{"http://app.example:3000", http.StatusOK},
				{"http://127.0.0.1:" + otherPort, http.StatusForbidden},
				{"http://localhost:" + otherPort, http.StatusForbidden},
				{"https://" + host, http.StatusForbidden},
				{"http://evil.example", http.StatusForbidden},
				{"null", http.StatusForbidden},
			} {
				header := map[string]string{"Authorization": "Bearer " + token}
				if tt.origin != "" {
					header["Origin"] = tt.origin
				}
				resp, body := post(t, url, initializeBody, header)
				if resp.StatusCode != tt.want {
					t.Errorf("Origin %q: HTTP %d, want %d: %s", tt.origin, resp.StatusCode, tt.want, body)
				}
			}
		})
	}
}

// TestMCPAllowOriginMustBeAnOrigin: a value of --allow-origin that no
// browser sends as an Origin is refused at start.
func TestMCPAllowOriginMustBeAnOrigin(t *testing.T) {
	for _, bad := range []string{"localhost:3000", "http://app.example/page", "*", "null"} {
		code, _, stderr := jarvis(t, nil, "mcp", "--http", "127.0.0.1:0", "--allow-origin", bad, "--vault", t.TempDir(), "--db", t.TempDir()+"/j.db")
		if code != 2 || !strings.Contains(stderr, "is not an origin") {
			t.Errorf("--allow-origin %q: exit %d, %q", bad, code, stderr)
		}
	}
}

// serveTest runs serveHTTP with opts for an empty server on a loopback
// port until the test ends, and returns the server and its URL.
func serveTest(t *testing.T, opts httpOptions) (*mcpsdk.Server, string) {
	t.Helper()
	server := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	go func() { done <- serveHTTP(ctx, server, l, opts, log) }()
	t.Cleanup(func() { cancel(); <-done })
	return server, "http://" + l.Addr().String() + "/mcp"
}

// TestServeHTTPWarnsWhenServingTheNetwork: a listener on an address
// other than loopback is said in the log, at start.
func TestServeHTTPWarnsWhenServingTheNetwork(t *testing.T) {
	for _, tt := range []struct {
		addr string
		warn bool
	}{{"0.0.0.0:8765", true}, {"192.168.1.20:8765", true}, {"127.0.0.1:8765", false}, {"[::1]:8765", false}} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// The listener says it is on tt.addr, and listens on loopback.
		claimed, _ := net.ResolveTCPAddr("tcp", tt.addr)
		var logged sharedtest.SyncBuffer
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- serveHTTP(ctx, mcpsdk.NewServer(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil),
				addrListener{l, claimed}, httpOptions{token: "0123456789abcdef"}, slog.New(slog.NewTextHandler(&logged, nil)))
		}()
		for start := time.Now(); !strings.Contains(logged.String(), "serving MCP over HTTP"); time.Sleep(10 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: not serving after 10s", tt.addr)
			}
		}
		cancel()
		<-done
		if got := strings.Contains(logged.String(), "level=WARN msg=\"serving MCP to the network"); got != tt.warn {
			t.Errorf("%s: warned %v, want %v:\n%s", tt.addr, got, tt.warn, logged.String())
		}
	}
}

// addrListener reports addr as its address.
type addrListener struct {
	net.Listener
	addr net.Addr
}

func (l addrListener) Addr() net.Addr { return l.addr }

// TestMCPHTTPGuards: with a token set, a request without it or with
// another is refused; a Host header naming another site (DNS rebinding),
// a body over the bound, ids the SDK would change and JSON nested past
// its decoder are refused too.
func TestMCPHTTPGuards(t *testing.T) {
	const token = "0123456789abcdef0123"
	url, _ := startHTTP(t, map[string]string{envHTTPToken: token})
	auth := map[string]string{"Authorization": "Bearer " + token}
	for _, tt := range []struct {
		name   string
		body   string
		header map[string]string
		want   int
	}{
		{"the token", initializeBody, auth, http.StatusOK},
		{"no token", initializeBody, nil, http.StatusUnauthorized},
		{"another token", initializeBody, map[string]string{"Authorization": "Bearer " + token + "x"}, http.StatusUnauthorized},
		{"not bearer", initializeBody, map[string]string{"Authorization": token}, http.StatusUnauthorized},
		{"another host", initializeBody, map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, http.StatusForbidden},
		{"a fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"initialize","params":{}}`, auth, http.StatusBadRequest},
		{"a 30-digit id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"initialize","params":{}}`, auth, http.StatusBadRequest},
		{"JSON 2,000 levels deep", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + strings.Repeat(`[`, 2000) + strings.Repeat(`]`, 2000) + `}`, auth, http.StatusBadRequest},
		{"a body over 1 MB", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", maxRequestBytes) + `"}}`, auth, http.StatusRequestEntityTooLarge},
	} {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tt.header {
			req.Header.Set(k, v)
		}
		if h, ok := tt.header["Host"]; ok {
			req.Host = h
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: HTTP %d, want %d: %s", tt.name, resp.StatusCode, tt.want, body)
		}
	}
}

// TestMCPHTTPFlagsNeedHTTP: a flag that only means something with --http,
// given without it, is a usage error naming the flag, not a stdio server
// that ignores it: `--allow-remote` alone would otherwise look like it
// served the network.
func TestMCPHTTPFlagsNeedHTTP(t *testing.T) {
	vault := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--allow-remote"}, "--allow-remote applies only with --http"},
		{[]string{"--allow-origin", "http://localhost:3000"}, "--allow-origin applies only with --http"},
		{[]string{"--session-timeout", "5m"}, "--session-timeout applies only with --http"},
		{[]string{"--allow-remote", "--session-timeout", "0"}, "--allow-remote and --session-timeout apply only with --http"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			code := run(ctx, e, append([]string{"mcp", "--vault", vault, "--db", t.TempDir() + "/j.db", "--watch=false"}, tt.args...))
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Fatalf("stdout %q, want nothing: no server may start", stdout.String())
			}
		})
	}
}

// TestMCPHTTPRefusesBatches: a JSON-RPC batch is refused over HTTP as
// over stdio, with one -32600 error and nothing run. Taken, the SDK's
// own reading of a batch answered id 1.5 as 1, a 30-digit id as -2^63,
// and one of two requests sharing an id not at all: the checks a single
// request gets did not reach the elements of a batch. A client speaking
// 2025-03-26, the last version with batches, is refused as well.
func TestMCPHTTPRefusesBatches(t *testing.T) {
	url, _ := startHTTP(t, nil)
	const old = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`
	resp, body := post(t, url, old, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	session := map[string]string{"Mcp-Protocol-Version": "2025-03-26"}
	if resp, body := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: HTTP %d: %s", resp.StatusCode, body)
	}
	for _, tt := range []struct {
		name, body string
		header     map[string]string
	}{
		{"a fraction id", `[{"jsonrpc":"2.0","id":1.5,"method":"ping"}]`, session},
		{"a 30-digit id", `[{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}]`, session},
		{"a repeated id", `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`, session},
		{"good ids", `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`, session},
		{"an initialize", `[` + old + `]`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, url, tt.body, tt.header)
			var reply struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal([]byte(body), &reply); err != nil {
				t.Fatalf("HTTP %d, body %q: want one JSON-RPC error, not an array: %v", resp.StatusCode, body, err)
			}
			if resp.StatusCode != http.StatusBadRequest || reply.Error.Code != -32600 || string(reply.ID) != "null" ||
				!strings.Contains(reply.Error.Message, "batches are not supported") {
				t.Fatalf("HTTP %d, body %s; want 400 and a -32600 error with id null saying batches are not supported", resp.StatusCode, body)
			}
		})
	}
	// Single requests are still served.
	if resp, body := post(t, url, `{"jsonrpc":"2.0","id":10,"method":"ping"}`, session); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":10`) {
		t.Fatalf("a ping after the batches: HTTP %d: %s", resp.StatusCode, body)
	}
}

// TestServeHTTPBearerSchemeAnyCase: the Bearer scheme is matched in any
// case and may be followed by several spaces (RFC 9110 section 11: auth
// schemes are case-insensitive); another token, none, another scheme or
// a scheme without a token are refused with 401 and a WWW-Authenticate
// challenge naming Bearer.
func TestServeHTTPBearerSchemeAnyCase(t *testing.T) {
	const token = "0123456789abcdef0123"
	_, url := serveTest(t, httpOptions{token: token})
	for _, tt := range []struct {
		auth string
		want int
	}{
		{"Bearer " + token, http.StatusOK},
		{"bearer " + token, http.StatusOK},
		{"BEARER " + token, http.StatusOK},
		{"bEaReR " + token, http.StatusOK},
		{"Bearer   " + token, http.StatusOK},
		{"", http.StatusUnauthorized},
		{"Bearer " + token + "x", http.StatusUnauthorized},
		{"bearer wrong", http.StatusUnauthorized},
		{"Basic " + token, http.StatusUnauthorized},
		{"Bearer", http.StatusUnauthorized},
		{"Bearer ", http.StatusUnauthorized},
		{"Bearer" + token, http.StatusUnauthorized},
		{token, http.StatusUnauthorized},
	} {
		header := map[string]string{}
		if tt.auth != "" {
			header["Authorization"] = tt.auth
		}
		resp, body := post(t, url, initializeBody, header)
		if resp.StatusCode != tt.want {
			t.Errorf("Authorization %q: HTTP %d, want %d: %s", tt.auth, resp.StatusCode, tt.want, body)
			continue
		}
		if challenge := resp.Header.Get("WWW-Authenticate"); tt.want == http.StatusUnauthorized && !strings.HasPrefix(challenge, "Bearer") {
			t.Errorf("Authorization %q: WWW-Authenticate %q, want a Bearer challenge", tt.auth, challenge)
		}
	}
}

// TestServeHTTPRefusalsSayWhatToDo: a wrong token is told it does not
// match (and is not repeated), a missing one how to send it; a body that
// is not JSON is told where it goes wrong, as stdio tells a line (it was
// told to send one message, as if it held several); a Host
// that is not a loopback name is told which are, and --allow-remote.
func TestServeHTTPRefusalsSayWhatToDo(t *testing.T) {
	const token = "0123456789abcdef0123"
	_, url := serveTest(t, httpOptions{token: token})
	auth := map[string]string{"Authorization": "Bearer " + token}
	for _, tt := range []struct {
		name, body string
		header     map[string]string
		want       []string
		notWant    string
	}{
		{"wrong token", initializeBody, map[string]string{"Authorization": "Bearer wrong-token-sent"}, []string{"does not match " + envHTTPToken}, "wrong-token-sent"},
		{"no token", initializeBody, nil, []string{"Authorization: Bearer <token>", envHTTPToken}, ""},
		{"not JSON", `{"jsonrpc": nope`, auth, []string{"the body is not valid JSON: the character 'o' at byte 14 is out of place"}, "unmarshaling"},
		{"cut short", `{"jsonrpc":`, auth, []string{"the body is not valid JSON: it ends after 11 bytes, before the JSON is complete"}, "one JSON-RPC message"},
		{"two messages", initializeBody + initializeBody, auth, []string{"each request must be one JSON-RPC message"}, ""},
	} {
		_, body := post(t, url, tt.body, tt.header)
		for _, w := range tt.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: %s; want it to say %q", tt.name, body, w)
			}
		}
		if tt.notWant != "" && strings.Contains(body, tt.notWant) {
			t.Errorf("%s: %s; says %q", tt.name, body, tt.notWant)
		}
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "localhost") || !strings.Contains(string(body), "--allow-remote") {
		t.Errorf("another host: HTTP %d: %s", resp.StatusCode, body)
	}
}

// rpcMessage is the one JSON-RPC message of an HTTP response body, sent
// as JSON or as the data of an event stream.
func rpcMessage(t *testing.T, body string) map[string]any {
	t.Helper()
	data := body
	for line := range strings.SplitSeq(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = d
		}
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(data), &msg); err != nil {
		t.Fatalf("body %q: not one JSON-RPC message: %v", body, err)
	}
	return msg
}

// field reads a dotted path ("result.serverInfo.name") from a decoded
// JSON value, nil when it is not there.
func field(v any, path string) any {
	for k := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestServeHTTPKeepsNoSessions: the HTTP server keeps no sessions. An
// initialize is answered without Mcp-Session-Id, a later request without
// one is served, a stale session id from before a restart does not get
// 404, nothing stays open in the server between requests, and GET (a
// stream for a session's messages) is answered 405 with Allow: POST and
// a body saying why. It
// kept every session until it idled out, and refused a request without
// the header with 400.
func TestServeHTTPKeepsNoSessions(t *testing.T) {
	server, url := serveTest(t, httpOptions{})
	resp, body := post(t, url, initializeBody, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("initialize: HTTP %d, Mcp-Session-Id %q: %s; want 200 and no session", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), body)
	}
	for _, header := range []map[string]string{
		{"Mcp-Protocol-Version": "2025-06-18"},
		{"Mcp-Protocol-Version": "2025-06-18", "Mcp-Session-Id": "FROM-BEFORE-A-RESTART"},
	} {
		resp, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, header)
		if msg := rpcMessage(t, body); resp.StatusCode != http.StatusOK || msg["error"] != nil || field(msg, "id") != 2.0 {
			t.Fatalf("a ping with %v: HTTP %d: %s", header, resp.StatusCode, body)
		}
	}
	for range server.Sessions() {
		t.Fatal("a session is still open after its requests were answered")
	}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	get, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	said, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != http.StatusMethodNotAllowed || get.Header.Get("Allow") != "POST" || !strings.Contains(string(said), "requests sent by POST") {
		t.Fatalf("GET: HTTP %d, Allow %q, %q; want 405, POST, and the reason in words", get.StatusCode, get.Header.Get("Allow"), said)
	}
}

// TestMCPHTTPOlderClients: a client of 2024-11-05, 2025-03-26, 2025-06-18
// or 2025-11-25 initializes, says it is initialized and calls a tool over
// HTTP as it always did, sending the Mcp-Session-Id it was given (none),
// and gets its own version back and the tool's answer.
func TestMCPHTTPOlderClients(t *testing.T) {
	url, _ := startHTTP(t, nil)
	for _, version := range []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			resp, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+
				`","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`, nil)
			if got := field(rpcMessage(t, body), "result.protocolVersion"); resp.StatusCode != http.StatusOK || got != version {
				t.Fatalf("initialize: HTTP %d, version %v: %s", resp.StatusCode, got, body)
			}
			header := map[string]string{"Mcp-Protocol-Version": version}
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				header["Mcp-Session-Id"] = id
			}
			if resp, body := post(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header); resp.StatusCode != http.StatusAccepted {
				t.Fatalf("initialized: HTTP %d: %s", resp.StatusCode, body)
			}
			resp, body = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list-vaults","arguments":{}}}`, header)
			msg := rpcMessage(t, body)
			vaults, _ := field(msg, "result.structuredContent.vaults").([]any)
			if resp.StatusCode != http.StatusOK || field(msg, "result.isError") == true || len(vaults) != 1 {
				t.Fatalf("tools/call list-vaults: HTTP %d: %s", resp.StatusCode, body)
			}
		})
	}
}

// meta20260728 is the _meta every request of MCP 2026-07-28 carries in
// place of the initialize handshake.
const meta20260728 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"new","version":"1"}}`

// TestMCPHTTPSpeaks20260728: a client of MCP 2026-07-28 asks
// server/discover and gets the versions from 2025-03-26 to 2026-07-28,
// the capabilities jarvis answers (prompts among them, as prompts/list is
// answered) and the server's name and icon; it then calls a tool with no
// handshake at all. The stateful handler refused every such request.
func TestMCPHTTPSpeaks20260728(t *testing.T) {
	url, _ := startHTTP(t, nil)
	header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta20260728+`}}`, header)
	msg := rpcMessage(t, body)
	if resp.StatusCode != http.StatusOK || msg["error"] != nil {
		t.Fatalf("server/discover: HTTP %d: %s", resp.StatusCode, body)
	}
	versions, _ := field(msg, "result.supportedVersions").([]any)
	for _, want := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		if !slices.Contains(versions, any(want)) {
			t.Errorf("supportedVersions %v lack %s", versions, want)
		}
	}
	for _, c := range []string{"tools", "resources", "prompts"} {
		if field(msg, "result.capabilities."+c) == nil {
			t.Errorf("capabilities lack %s: %s", c, body)
		}
	}
	info, _ := field(msg, "result._meta").(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
	icons, _ := info["icons"].([]any)
	if info["name"] != "jarvis" || len(icons) != 1 || !strings.HasPrefix(fmt.Sprint(field(icons[0], "src")), "data:image/svg+xml;base64,") {
		t.Errorf("serverInfo %v: want jarvis with one SVG icon", info)
	}

	header = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "list-vaults"}
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list-vaults","arguments":{},`+meta20260728+`}}`, header)
	msg = rpcMessage(t, body)
	vaults, _ := field(msg, "result.structuredContent.vaults").([]any)
	if resp.StatusCode != http.StatusOK || field(msg, "result.isError") == true || len(vaults) != 1 {
		t.Fatalf("tools/call list-vaults: HTTP %d: %s", resp.StatusCode, body)
	}
}

// TestMCPHTTPUnsupportedVersion: a request naming an MCP version the
// server does not speak is told which it does, the versions the README
// claims, separated by commas and spaces (the SDK's refusal ran them
// together); one newer than all of them is left to the SDK, which
// answers it with a JSON-RPC error listing them.
func TestMCPHTTPUnsupportedVersion(t *testing.T) {
	_, url := serveTest(t, httpOptions{})
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2024-10-07"})
	want := `Bad Request: MCP version "2024-10-07" is not supported; supported versions: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28`
	if resp.StatusCode != http.StatusBadRequest || strings.TrimSpace(body) != want {
		t.Errorf("HTTP %d: %q; want 400 and %q", resp.StatusCode, body, want)
	}
	header := map[string]string{"Mcp-Protocol-Version": "2099-01-01", "Mcp-Method": "server/discover"}
	resp, body = post(t, url, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+strings.ReplaceAll(meta20260728, "2026-07-28", "2099-01-01")+`}}`, header)
	if strings.Contains(body, "is not supported; supported versions") {
		t.Errorf("a newer version: HTTP %d: %s; want the SDK's answer", resp.StatusCode, body)
	}
}

// TestMCPSessionTimeoutHasNoEffect: --session-timeout, which closed idle
// sessions, is still taken so that a command line giving it still
// starts the server, and the log says it does nothing.
func TestMCPSessionTimeoutHasNoEffect(t *testing.T) {
	url, logged := startHTTP(t, nil, "--session-timeout", "5m")
	if resp, body := post(t, url, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: HTTP %d: %s", resp.StatusCode, body)
	}
	if !strings.Contains(logged.String(), "--session-timeout 5m0s has no effect: the HTTP server keeps no sessions") {
		t.Fatalf("log:\n%s", logged.String())
	}
}

// TestMCPHTTPUnknownMethod: a request of a method the server does not
// answer gets a JSON-RPC error naming it, as over stdio, in every protocol
// generation: before 2026-07-28 an HTTP 200 a client's transport reads
// (the SDK's plain-text 400 was not), at 2026-07-28 the 404 that version
// asks for; neither in the SDK's own words.
func TestMCPHTTPUnknownMethod(t *testing.T) {
	url, _ := startHTTP(t, nil)
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		status int
	}{
		{"2025-06-18", map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":7,"method":"frobnicate"}`, http.StatusOK},
		{"2026-07-28", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "frobnicate"},
			`{"jsonrpc":"2.0","id":7,"method":"frobnicate","params":{` + meta20260728 + `}}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.body, tc.header)
			msg := rpcMessage(t, body)
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
				field(msg, "id") != float64(7) || field(msg, "error.code") != float64(-32601) || field(msg, "error.message") != `method not found: "frobnicate"` {
				t.Errorf("HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
	// A known method still passes.
	resp, body := post(t, url, `{"jsonrpc":"2.0","id":8,"method":"ping"}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != http.StatusOK || rpcMessage(t, body)["error"] != nil {
		t.Errorf("ping: HTTP %d: %s", resp.StatusCode, body)
	}
}
