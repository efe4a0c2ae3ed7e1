// Package reach says why a host on the network could not be reached, in
// words for a reader rather than Go's ("dial tcp: lookup huggingface.co on
// 10.0.0.53:53: server misbehaving"). The model download and the remote
// embedders word their network failures through it.
package reach

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// Kind is what went wrong on the way to a host.
type Kind int

// The kinds of network failure.
const (
	// Other is an error that is not a network failure this package
	// knows.
	Other Kind = iota
	// NoName: the host's name could not be looked up (no DNS answer, an
	// unknown name, a resolver that fails).
	NoName
	// Refused: the host, or a closed port, refused the connection.
	Refused
	// Timeout: no answer came in time.
	Timeout
	// TLS: the secure connection could not be set up (a certificate that
	// is not trusted, as behind a proxy that inspects traffic).
	TLS
	// Proxy: the proxy (HTTPS_PROXY, HTTP_PROXY) could not be reached.
	Proxy
	// Closed: the connection was closed or reset before the answer was
	// complete.
	Closed
)

// Classify says what kind of network failure err is. It is the one rule
// for it: every caller that words a failed request asks here.
func Classify(err error) Kind {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "proxyconnect" {
		return Proxy
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case err == nil:
		return Other
	case errors.As(err, &dns):
		if dns.IsTimeout {
			return Timeout
		}
		return NoName
	case errors.As(err, &cert), errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid),
		errors.As(err, &record), errors.As(err, &alert):
		return TLS
	case errors.Is(err, syscall.ECONNREFUSED):
		return Refused
	case errors.Is(err, context.DeadlineExceeded) || timeout(err):
		return Timeout
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, net.ErrClosed):
		return Closed
	}
	return Other
}

func timeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// Why says in a few words why a host could not be reached, by err's
// kind, for the caller to put after the host it names: "cannot reach
// huggingface.co: its name could not be looked up". ok is false for an
// error that is not a network failure this package knows.
func Why(err error) (why string, ok bool) {
	switch Classify(err) {
	case NoName:
		return "its name could not be looked up", true
	case Refused:
		return "the connection was refused", true
	case Timeout:
		return "no answer came in time", true
	case TLS:
		return "a secure connection could not be set up (its certificate is not trusted here)", true
	case Proxy:
		return "the proxy on the way could not be reached", true
	case Closed:
		return "the connection was closed before the answer was complete", true
	}
	return "", false
}

// Hint says what the reader may check for a failure of err's kind: the
// machine may be offline, or need a proxy.
func Hint(err error) string {
	switch Classify(err) {
	case Proxy:
		return "check the proxy that HTTPS_PROXY or HTTP_PROXY names"
	case TLS:
		return "a proxy that inspects traffic needs its certificate trusted by this machine (SSL_CERT_FILE names extra ones)"
	}
	return "this machine may be offline, or need a proxy to reach the network (jarvis honours HTTPS_PROXY)"
}

// ParseBaseURL reads a server's base URL as a setting gives it: an http
// or https URL with a host, such as http://localhost:11434. It is the
// one rule both the settings check and the embedders apply, so that a
// typo fails when the configuration is read, before any request.
func ParseBaseURL(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("is %q, which is not an http(s) URL such as http://localhost:11434", base)
	}
	return u, nil
}
