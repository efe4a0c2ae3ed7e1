package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMaxConns(t *testing.T) {
	for _, tt := range []struct {
		name  string
		limit uint64
		ok    bool
		procs int
		want  int
	}{
		{"a limit of 1024 on 2 processors", 1024, true, 2, 1024 - 64 - 2*8},
		{"a limit of 1024 on 32 processors", 1024, true, 32, 1024 - 64 - 32*8},
		{"macOS's default of 256", 256, true, 8, 128},
		{"a tiny limit", 1, true, 2, 1},
		{"plenty", 1 << 20, true, 8, maxConnsCeiling},
		{"no limit", ^uint64(0), true, 8, maxConnsCeiling},
		{"none to read", 0, false, 8, maxConnsCeiling},
	} {
		if got := maxConns(tt.limit, tt.ok, tt.procs); got != tt.want {
			t.Errorf("%s: %d connections, want %d", tt.name, got, tt.want)
		}
	}
}

// serveConns runs serveHTTP with the connection bounds given and
// connsToken required, for a test that speaks raw HTTP to it; it returns
// the server and the listener's address.
func serveConns(t *testing.T, bounds connBounds) (*mcpsdk.Server, string) {
	t.Helper()
	server, url := serveTest(t, httpOptions{token: connsToken, conns: bounds})
	return server, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
}

const connsToken = "0123456789abcdef0123"

// dial opens a connection to addr, closed when the test ends.
func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c: a read returns EOF
// or a reset, rather than waiting past wait.
func closedByServer(c net.Conn, wait time.Duration) bool {
	c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// authorizedInitialize initializes a session with the token, waiting at most
// 10s, and returns the HTTP status.
func authorizedInitialize(t *testing.T, addr string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+connsToken)
	// A connection of its own, as a new client's would be.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("a client with the token was not served: %v", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// TestServeHTTPIdleConnectionsMakeRoom: connections that send nothing, or
// were refused for want of the token and kept alive, fill the server's
// bound many times over, and a client with the token is still served at
// once: the bound holds, and the connections idle longest make room for
// the new ones.
func TestServeHTTPIdleConnectionsMakeRoom(t *testing.T) {
	const max = 8
	_, addr := serveConns(t, connBounds{max: max})
	for i := range 5 * max {
		c := dial(t, addr)
		if i%2 == 0 {
			continue // sends nothing
		}
		fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			continue // made room for a newer one already
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a request without the token: HTTP %d", resp.StatusCode)
		}
	}
	if code := authorizedInitialize(t, addr); code != http.StatusOK {
		t.Fatalf("a client with the token: HTTP %d", code)
	}
}

// TestServeHTTPConnectionBoundHolds: past the bound an idle connection is
// closed for each new one, so that the server holds max; when all of
// them are busy, a new one waits briefly and is answered 503.
func TestServeHTTPConnectionBoundHolds(t *testing.T) {
	const max = 4
	_, addr := serveConns(t, connBounds{max: max, admitWait: 200 * time.Millisecond, header: time.Minute})
	var conns []net.Conn
	for range 5 * max {
		conns = append(conns, dial(t, addr))
	}
	closed := func() int {
		n := 0
		for _, c := range conns {
			if closedByServer(c, 20*time.Millisecond) {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for closed() < 4*max {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d idle connections closed 10s after they were opened, want %d: the server holds more than %d",
				closed(), len(conns), 4*max, max)
		}
	}
	if n := closed(); n != 4*max {
		t.Fatalf("%d of %d connections closed, want %d: the server holds fewer than %d", n, len(conns), 4*max, max)
	}

	// Now max connections busy with a request whose body is slow to
	// come. Each asks to be told to send its body, so that the test
	// knows when the server has begun to read it.
	for range max {
		c := dial(t, addr)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n", addr, connsToken)
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, " 100 ") {
			t.Fatalf("a request that expects 100-continue: %q, %v", line, err)
		}
		fmt.Fprint(c, "{")
	}
	c := dial(t, addr)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("a connection past the bound, all busy: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a connection past the bound, all busy: HTTP %d, want 503 with Retry-After", resp.StatusCode)
	}
}

// TestServeHTTPCutsASlowBody: a body that stops coming is cut off after
// the body timeout, and the connection closed. Without the token the
// request is refused before its body is read, and the connection is
// closed after refusedBodyGrace, long before the body timeout.
func TestServeHTTPCutsASlowBody(t *testing.T) {
	for _, tt := range []struct {
		name string
		body time.Duration
		auth string
		want int
	}{
		{"with the token", 300 * time.Millisecond, "Authorization: Bearer " + connsToken + "\r\n", http.StatusBadRequest},
		{"without", time.Minute, "", http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, addr := serveConns(t, connBounds{request: tt.body})
			c := dial(t, addr)
			c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", addr, tt.auth)
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("no answer to a body that stopped coming: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("HTTP %d, want %d", resp.StatusCode, tt.want)
			}
			if _, err := r.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("the connection is still open 10s after the body stopped: %v", err)
			}
		})
	}
}

// TestServeHTTPKeepsStreams: the stream a client keeps open for the
// server's messages (subscriptions/listen, in MCP 2026-07-28: the server
// keeps no sessions, and a GET stream belonged to one) is not cut by any
// of the timeouts, however long it stays quiet: a message sent after all
// of them passed arrives.
func TestServeHTTPKeepsStreams(t *testing.T) {
	const short = 200 * time.Millisecond
	server, addr := serveConns(t, connBounds{header: short, request: short, idle: short})
	url := "http://" + addr + "/mcp"
	noop := func(context.Context, *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		return &mcpsdk.CallToolResult{}, nil
	}
	// A tool from the start, so that the server offers its list's changes.
	server.AddTool(&mcpsdk.Tool{Name: "early", InputSchema: map[string]any{"type": "object"}}, noop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	listen := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta20260728 + `}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(listen))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Authorization": "Bearer " + connsToken, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"} {
		req.Header.Set(k, v)
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("subscriptions/listen: HTTP %d", stream.StatusCode)
	}
	time.Sleep(5 * short)
	server.AddTool(&mcpsdk.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}}, noop)
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "notifications/tools/list_changed") {
			return
		}
	}
	t.Fatalf("the stream ended without the server's message: %v", lines.Err())
}
