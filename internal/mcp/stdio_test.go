package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jarvis-mcp/jarvis/internal/config"
	"github.com/jarvis-mcp/jarvis/internal/mcp"
	"github.com/jarvis-mcp/jarvis/internal/search"
	"github.com/jarvis-mcp/jarvis/internal/search/notes"
	"github.com/jarvis-mcp/jarvis/internal/sharedtest"
)

// stdioPeer is a client's end of a server run over StdioTransport: what it
// writes is the server's stdin, and out carries each line of its stdout.
type stdioPeer struct {
	t    *testing.T
	in   *io.PipeWriter
	out  <-chan string
	done <-chan struct{} // closed when server.Run returns
	err  *error          // what server.Run returned, once done is closed
}

// waitLimit bounds every wait of these tests; none is reached unless the
// server is broken.
const waitLimit = 10 * time.Second

// startStdio runs the server over b on pipes through transport, and stops
// it when the test ends.
func startStdio(t testing.TB, b backend, transport func(io.ReadCloser, io.Writer) mcpsdk.Transport) *stdioPeer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	// The server's own bound on requests running per session is lifted,
	// so that these tests see the stdio transport's bound alone.
	unbounded := mcp.Limits{SessionRunning: 1 << 10, SessionWaiting: 1 << 10, Running: 1 << 10, Waiting: 1 << 10}
	server := b.server(mcp.Options{Version: "test", Logger: quiet(), Limits: unbounded})
	done := make(chan struct{})
	var runErr error
	go func() {
		defer close(done)
		runErr = server.Run(ctx, transport(inR, outW))
		outW.Close()
	}()
	out := make(chan string, 1024)
	go func() {
		defer close(out)
		lines := bufio.NewScanner(outR)
		lines.Buffer(nil, 1<<24)
		for lines.Scan() {
			out <- lines.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		outR.Close()
		select {
		case <-done:
		case <-time.After(waitLimit):
			t.Error("the server did not stop")
		}
	})
	tt, _ := t.(*testing.T)
	return &stdioPeer{t: tt, in: inW, out: out, done: done, err: &runErr}
}

// send writes one line to the server's stdin.
func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write %q: %v", line, err)
	}
}

// recv reads the next line of stdout, which must be a JSON-RPC message.
func (p *stdioPeer) recv() rpcMessage {
	p.t.Helper()
	select {
	case line, ok := <-p.out:
		if !ok {
			p.t.Fatal("stdout ended: the session is over")
		}
		msg, err := parseMessage(line)
		if err != nil {
			p.t.Fatal(err)
		}
		return msg
	case <-time.After(waitLimit):
		p.t.Fatal("no answer")
	}
	return rpcMessage{}
}

// initialize runs the MCP handshake.
func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if m := p.recv(); string(m.ID) != `"init"` || m.Error != nil {
		p.t.Fatalf("initialize: %+v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// rpcMessage is one line of the server's stdout.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// parseMessage reads a line the server wrote, and says what is wrong when
// it is not a JSON-RPC 2.0 message a client could take.
func parseMessage(line string) (rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return m, fmt.Errorf("stdout line is not a JSON object: %q", line)
	}
	switch {
	case m.JSONRPC != "2.0":
		return m, fmt.Errorf("stdout line without jsonrpc 2.0: %q", line)
	case m.Method == "" && (m.Result == nil) == (m.Error == nil):
		return m, fmt.Errorf("a response needs exactly one of result and error: %q", line)
	case m.Method == "" && m.ID == nil:
		return m, fmt.Errorf("a response without an id: %q", line)
	case m.Error != nil && m.Error.Code == 0:
		return m, fmt.Errorf("an error without a code: %q", line)
	}
	return m, nil
}

// nested is a JSON value nested depth arrays deep.
func nested(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// hostileLines are lines that each ended the session before the stdio
// filter learnt to answer them, with the error each must get. The first
// five are from the issue.
var hostileLines = []struct {
	name, line string
	code       int
	id         string // the id the answer carries
}{
	{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, "null"},
	{"array id", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, -32600, "null"},
	{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
	{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, "null"},
	{"exponent id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null"},
	{"huge id", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`, -32600, "null"},
	{"inexact id", `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, -32600, "null"},
	{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, "null"},
	{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, "null"},
	{"1001 levels deep", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"a":` + nested(1000) + `}}`, -32700, "null"},
	{"bare deep array", nested(5000), -32700, "null"},
	{"method not a string", `{"jsonrpc":"2.0","id":4,"method":7}`, -32600, "4"},
	{"response with a null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, -32600, "null"},
	{"response with a bad error", `{"jsonrpc":"2.0","id":5,"error":{"code":"bad"}}`, -32600, "null"},
	{"jsonrpc in capitals", `{"JSONRPC":"2.0","id":6,"method":"ping"}`, -32600, "6"},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, "7"},
	{"not JSON", `hello`, -32700, "null"},
	{"two messages on a line", `{"jsonrpc":"2.0","id":8,"method":"ping"} {"jsonrpc":"2.0","id":9,"method":"ping"}`, -32700, "null"},
	{"empty batch", `[]`, -32600, "null"},
	{"a number", `42`, -32600, "null"},
	{"null", `null`, -32600, "null"},
	{"cancel with an object id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, 0, ""},
}

// TestStdioSurvivesHostileLines sends each hostile line after initialize:
// it gets its error (or, for a notification, nothing) and the next
// request is answered.
func TestStdioSurvivesHostileLines(t *testing.T) {
	for _, c := range hostileLines {
		t.Run(c.name, func(t *testing.T) {
			p := startStdio(t, &fake{}, mcp.StdioTransport)
			p.initialize()
			p.send(c.line)
			if c.code != 0 {
				m := p.recv()
				if m.Error == nil || m.Error.Code != c.code || string(m.ID) != c.id {
					t.Fatalf("answer %+v (error %+v); want error %d with id %s", m, m.Error, c.code, c.id)
				}
			}
			p.send(`{"jsonrpc":"2.0","id":"next","method":"tools/list"}`)
			if m := p.recv(); string(m.ID) != `"next"` || m.Error != nil || len(m.Result) == 0 {
				t.Fatalf("tools/list after the line: %+v", m)
			}
		})
	}
}

// TestStdioStripsSpaceAfterAMessage: the SDK takes anything but a newline
// after a message as trailing data and ends the session.
func TestStdioStripsSpaceAfterAMessage(t *testing.T) {
	p := startStdio(t, &fake{}, mcp.StdioTransport)
	p.initialize()
	p.send("  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} \t ")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r")
	answered := map[string]bool{}
	for range 2 {
		m := p.recv()
		answered[string(m.ID)] = m.Error == nil
	}
	if !answered["1"] || !answered["2"] {
		t.Fatalf("pings answered: %v", answered)
	}
}

// TestStdioCallBeforeInitialize: a call before the handshake gets Invalid
// Request with a message that says what to do, not the SDK's code 0.
func TestStdioCallBeforeInitialize(t *testing.T) {
	p := startStdio(t, &fake{}, mcp.StdioTransport)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	m := p.recv()
	if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "1" || !strings.Contains(m.Error.Message, "send initialize first") {
		t.Fatalf("tools/list before initialize: %+v %+v", m, m.Error)
	}
	// ping is allowed before initialize.
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if m := p.recv(); string(m.ID) != "2" || m.Error != nil {
		t.Fatalf("ping before initialize: %+v", m)
	}
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m := p.recv(); string(m.ID) != "3" || m.Error != nil {
		t.Fatalf("tools/list after initialize: %+v", m)
	}
}

// gatedSearch is a keyword search whose calls wait until open is closed
// (or their request is cancelled), counting how many run at once.
type gatedSearch struct {
	open    chan struct{}
	entered chan struct{} // a value as each call starts

	mu            sync.Mutex
	running, most int
}

func newGatedSearch(calls int) *gatedSearch {
	return &gatedSearch{open: make(chan struct{}), entered: make(chan struct{}, calls)}
}

func (g *gatedSearch) Search(ctx context.Context, _ search.Query) (search.Answer, error) {
	g.mu.Lock()
	g.running++
	g.most = max(g.most, g.running)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
	}()
	g.entered <- struct{}{}
	select {
	case <-g.open:
		return search.Answer{Results: []notes.Result{}}, nil
	case <-ctx.Done():
		return search.Answer{}, ctx.Err()
	}
}

// await waits for n calls to start.
func (g *gatedSearch) await(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		select {
		case <-g.entered:
		case <-time.After(waitLimit):
			t.Fatalf("%d of %d searches started", i, n)
		}
	}
}

func searchCall(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search-vault","arguments":{"query":"coffee"}}}`, id)
}

// answeredSearch checks that m is a search-vault result, not an error.
func answeredSearch(t *testing.T, m rpcMessage) {
	t.Helper()
	var res struct {
		IsError bool `json:"isError"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || res.IsError {
		t.Fatalf("search answer %s: %+v %s", m.ID, m.Error, m.Result)
	}
}

// TestStdioBoundsRequestsInFlight pipelines 500 searches: once
// MaxInFlight are running the server reads no further request, no more
// than that run at once, and every one is answered.
func TestStdioBoundsRequestsInFlight(t *testing.T) {
	const total = 500
	g := newGatedSearch(total)
	held := make(chan struct{}, 1)
	p := startStdio(t, &fake{Search: g.Search}, mcp.StdioTransportWith(mcp.StdioLimits{
		InFlight: mcp.MaxInFlight, Grace: waitLimit,
		Held: func() {
			select {
			case held <- struct{}{}:
			default:
			}
		},
	}))
	p.initialize()
	go func() {
		for i := range total {
			if _, err := io.WriteString(p.in, searchCall(i)+"\n"); err != nil {
				return // the test ended
			}
		}
	}()
	g.await(t, mcp.MaxInFlight)
	select {
	case <-held:
	case <-time.After(waitLimit):
	}
	g.mu.Lock()
	running := g.running
	g.mu.Unlock()
	if running != mcp.MaxInFlight {
		t.Fatalf("%d searches running, the bound is %d", running, mcp.MaxInFlight)
	}
	close(g.open)
	answered := map[string]bool{}
	for len(answered) < total {
		m := p.recv()
		answeredSearch(t, m)
		answered[string(m.ID)] = true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most > mcp.MaxInFlight {
		t.Fatalf("%d searches ran at once; the bound is %d", g.most, mcp.MaxInFlight)
	}
}

// TestStdioFreesSlotsOfCancelledAndFailedRequests: with room for two
// requests, two cancelled searches and five failing calls each free their
// slot, so the session goes on answering; the cancelled ones are not
// answered.
func TestStdioFreesSlotsOfCancelledAndFailedRequests(t *testing.T) {
	g := newGatedSearch(2)
	p := startStdio(t, &fake{Search: g.Search}, mcp.StdioTransportWith(mcp.StdioLimits{InFlight: 2, Grace: waitLimit}))
	p.initialize()
	p.send(searchCall(1))
	p.send(searchCall(2))
	g.await(t, 2)
	for id := 1; id <= 2; id++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, id))
	}
	for id := 10; id < 15; id++ {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"no/such/method"}`, id))
	}
	for range 5 {
		if m := p.recv(); m.Error == nil || string(m.ID) == "1" || string(m.ID) == "2" {
			t.Fatalf("answer to an unknown method: %+v", m)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":"next","method":"tools/list"}`)
	if m := p.recv(); string(m.ID) != `"next"` || m.Error != nil {
		t.Fatalf("tools/list: %+v", m)
	}
}

// TestStdioCancelledRequestIsNotAnswered: a search the client cancels
// stops, and no answer to it is sent; the next request is answered.
func TestStdioCancelledRequestIsNotAnswered(t *testing.T) {
	g := newGatedSearch(1)
	p := startStdio(t, &fake{Search: g.Search}, mcp.StdioTransport)
	p.initialize()
	p.send(searchCall(7))
	g.await(t, 1)
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user stopped it"}}`)
	for deadline := time.Now().Add(waitLimit); ; time.Sleep(time.Millisecond) {
		g.mu.Lock()
		running := g.running
		g.mu.Unlock()
		if running == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled search is still running")
		}
	}
	p.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if m := p.recv(); string(m.ID) != `"after"` {
		t.Fatalf("the first message after the cancel is %+v, want the answer to the ping", m)
	}
}

// TestStdioAnswersRequestsInFlightWhenStdinCloses: a client that sends
// five searches and closes stdin gets all five answers, then the server
// stops.
func TestStdioAnswersRequestsInFlightWhenStdinCloses(t *testing.T) {
	g := newGatedSearch(5)
	draining := make(chan struct{})
	p := startStdio(t, &fake{Search: g.Search}, mcp.StdioTransportWith(mcp.StdioLimits{InFlight: mcp.MaxInFlight, Grace: waitLimit, Draining: func() { close(draining) }}))
	p.initialize()
	for id := range 5 {
		p.send(searchCall(id))
	}
	g.await(t, 5)
	p.in.Close()
	select {
	case <-draining:
	case <-time.After(waitLimit):
		t.Fatal("the server did not see stdin close")
	}
	close(g.open)
	for range 5 {
		answeredSearch(t, p.recv())
	}
	select {
	case <-p.done:
		if err := *p.err; err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("the server stopped with %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("the server did not stop after answering")
	}
}

// TestStdioDrainIsBounded: a request that does not finish within the
// grace period does not keep the server from stopping.
func TestStdioDrainIsBounded(t *testing.T) {
	g := newGatedSearch(1)
	p := startStdio(t, &fake{Search: g.Search}, mcp.StdioTransportWith(mcp.StdioLimits{InFlight: mcp.MaxInFlight, Grace: 10 * time.Millisecond}))
	p.initialize()
	p.send(searchCall(1))
	g.await(t, 1)
	p.in.Close()
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		t.Fatal("the server waited for a request that does not end")
	}
}

// FuzzStdio sends a line (or a few) after initialize to a server over a
// small vault, then a ping: the ping is answered, and every line the
// server writes is a JSON-RPC message. The seeds run under plain go test;
// go test -run '^$' -fuzz FuzzStdio -fuzztime 10s ./internal/mcp fuzzes.
func FuzzStdio(f *testing.F) {
	for _, c := range hostileLines {
		f.Add(c.line)
	}
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"search-vault","arguments":{"query":"coffee"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"read-note","arguments":{"path":"../../etc/passwd"}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"search-graph","arguments":{"query_note_path":"Pour over","depth":9}}}`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"obsidian://coffee/Water.md"}}`,
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"again","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"probe"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}",
		" \t\r",
		"\xff\xfe{}",
		`{"jsonrpc":"2.0","id":"\u0000\ud800","method":"ping"}`,
	} {
		f.Add(line)
	}
	src, err := filepath.Abs("../../examples/vault")
	if err != nil {
		f.Fatal(err)
	}
	dst := filepath.Join(f.TempDir(), "vault")
	sharedtest.CopyTree(f, src, dst)
	b := &fake{
		Vaults: []config.Vault{{Name: "coffee", Path: dst}},
		Search: searchFunc(func(context.Context, search.Query) (search.Answer, error) {
			return search.Answer{Results: []notes.Result{{Vault: "coffee", Path: "Water.md", Title: "Water"}}}, nil
		}),
	}
	f.Fuzz(func(t *testing.T, line string) {
		// No grace limit: a request whose slot is never freed keeps the
		// server from stopping.
		p := startStdio(t, b, mcp.StdioTransportWith(mcp.StdioLimits{InFlight: mcp.MaxInFlight, Grace: time.Hour}))
		p.initialize()
		p.send(line)
		p.send(`{"jsonrpc":"2.0","id":"fuzz-probe","method":"ping"}`)
		for {
			m := p.recv()
			if string(m.ID) == `"fuzz-probe"` {
				if m.Error != nil {
					t.Fatalf("ping after %q: %+v", line, m.Error)
				}
				break
			}
		}
		p.in.Close()
		for {
			select {
			case out, ok := <-p.out:
				if !ok {
					return
				}
				if _, err := parseMessage(out); err != nil {
					t.Fatal(err)
				}
			case <-time.After(waitLimit):
				t.Fatalf("after %q the server did not stop when stdin closed: a request was never answered", line)
			}
		}
	})
}

// TestStdioErrorsHaveCodes: the SDK's plain errors, which it sends with
// code 0, go out with the code that fits.
func TestStdioErrorsHaveCodes(t *testing.T) {
	p := startStdio(t, &fake{}, mcp.StdioTransport)
	p.initialize()
	for _, c := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,2]}`, -32602},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call"}`, -32600},
		{`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`, -32600},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":"not a cursor"}}`, -32602},
	} {
		p.send(c.line)
		if m := p.recv(); m.Error == nil || m.Error.Code != c.code {
			t.Errorf("answer to %s: %s %+v; want code %d", c.line, m.Result, m.Error, c.code)
		}
	}
}

// TestStdioBoundsSubscriptions: a session holds at most four
// subscriptions/listen open, the rest are refused, and an open one's id
// cannot be reused by another request (the SDK would answer that with no
// id, and the transport's slot would never free).
func TestStdioBoundsSubscriptions(t *testing.T) {
	p := startStdio(t, &fake{}, mcp.StdioTransport)
	p.initialize()
	for i := range 10 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"L%d","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`, i))
	}
	// Listens are handled side by side: which four stay open is not
	// fixed, so the id reused below is one that was not refused.
	refused := map[string]bool{}
	for len(refused) < 6 {
		m := p.recv()
		if m.Method != "" {
			continue // an open subscription's acknowledgement
		}
		if m.Error == nil || m.Error.Code == 0 || !strings.Contains(m.Error.Message, "subscriptions open") {
			t.Fatalf("answer to a listen beyond the bound: %+v", m)
		}
		refused[string(m.ID)] = true
	}
	open := ""
	for i := range 10 {
		if id := fmt.Sprintf("L%d", i); !refused[`"`+id+`"`] {
			open = id
			break
		}
	}
	p.send(`{"jsonrpc":"2.0","id":"` + open + `","method":"tools/list"}`)
	m := p.recv()
	for m.Method != "" {
		m = p.recv()
	}
	if m.Error == nil || m.Error.Code != -32600 || string(m.ID) != "null" {
		t.Fatalf("a request reusing an open listen's id: %+v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := p.recv(); string(m.ID) != `"p"` || m.Error != nil {
		t.Fatalf("ping: %+v", m)
	}
}

// TestStdioSurvivesHostileResourceURIs: a resource URI or tool name the
// SDK would quote into an answer it cannot send (a control character,
// invalid UTF-8) or quote whole (a huge tool name) is refused with a short
// error, and the session goes on.
func TestStdioSurvivesHostileResourceURIs(t *testing.T) {
	p := startStdio(t, &fake{}, mcp.StdioTransport)
	p.initialize()
	for i, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"jarvis://ex/a\u0001"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"a\u0000"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"jarvis://ex/\u007f.md"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{\"uri\":\"jarvis://ex/\xff.md\"}}",
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"` + strings.Repeat("x", 100000) + `","arguments":{}}}`,
	} {
		p.send(line)
		m := p.recv()
		if m.Error == nil && !strings.Contains(string(m.Result), `"isError":true`) {
			t.Fatalf("line %d: answered %+v", i, m)
		}
		if len(m.Result) > 1000 || (m.Error != nil && (m.Error.Code == 0 || len(m.Error.Message) > 1000)) {
			t.Fatalf("line %d: answer too long or without a code: %+v", i, m)
		}
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"ping%d","method":"ping"}`, i))
		if m := p.recv(); m.Error != nil || string(m.ID) != fmt.Sprintf(`"ping%d"`, i) {
			t.Fatalf("line %d: ping after it: %+v", i, m)
		}
	}
}
