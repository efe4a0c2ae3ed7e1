package reach

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// closedPort is an address on loopback where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestClassifyOnLoopback makes each failure for real, on loopback and
// through the resolver, and checks its kind and its words: no Go error
// text ("dial tcp", "lookup"), the host named.
func TestClassifyOnLoopback(t *testing.T) {
	// A server that takes the connection and closes it at once.
	hangUp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hangUp.Close()
	go func() {
		for {
			c, err := hangUp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	tlsServer := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake this test fails on purpose
	tlsServer.StartTLS()
	defer tlsServer.Close()
	proxy, _ := url.Parse("http://" + closedPort(t))

	for _, tc := range []struct {
		name   string
		url    string
		client *http.Client
		want   Kind
		words  string
	}{
		{"a closed port", "http://" + closedPort(t) + "/", &http.Client{}, Refused, "the connection was refused"},
		{"a server that hangs up", "http://" + hangUp.Addr().String() + "/", &http.Client{}, Closed, "the connection was closed before the answer was complete"},
		{"a name that resolves to nothing", "http://huggingface.co.invalid/", &http.Client{}, NoName, "its name could not be looked up"},
		{"a certificate not trusted", tlsServer.URL, &http.Client{}, TLS, "a secure connection could not be set up (its certificate is not trusted here)"},
		{"a proxy that is down", "https://huggingface.co.invalid/", &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}, Proxy, "the proxy on the way could not be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := tc.client.Get(tc.url)
			if err == nil {
				resp.Body.Close()
				t.Fatal("the request succeeded")
			}
			if got := Classify(err); got != tc.want {
				t.Fatalf("Classify(%v) = %d; want %d", err, got, tc.want)
			}
			why, ok := Why(err)
			if !ok || why != tc.words {
				t.Errorf("Why = %q, %v; want %q", why, ok, tc.words)
			}
			said := why + "; " + Hint(err)
			for _, raw := range []string{"dial tcp", "lookup ", "proxyconnect", "x509", "EOF", "connect:"} {
				if strings.Contains(said, raw) {
					t.Errorf("%q holds Go's words %q", said, raw)
				}
			}
			sharedtest.CheckWords(t, "reach", said)
		})
	}
}

// TestClassifyKinds: a deadline is a timeout, and an error that is not of
// the network is no kind at all.
func TestClassifyKinds(t *testing.T) {
	if k := Classify(fmt.Errorf("post: %w", context.DeadlineExceeded)); k != Timeout {
		t.Errorf("deadline: %d", k)
	}
	if k := Classify(&net.DNSError{Err: "i/o timeout", Name: "h", IsTimeout: true}); k != Timeout {
		t.Errorf("a DNS timeout: %d", k)
	}
	if _, ok := Why(fmt.Errorf("some other trouble")); ok {
		t.Error("an error of another kind has words")
	}
	if !strings.Contains(Hint(&net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}), "HTTPS_PROXY") {
		t.Error("the hint for an offline machine does not name HTTPS_PROXY")
	}
}
