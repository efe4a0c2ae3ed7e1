package mcp

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// flight bounds the client's requests one stdio session handles at once.
//
// The reader admits each request before passing it to the SDK, and waits
// while limit of them are unanswered: the lines behind it stay in the OS
// pipe, so a client that pipelines thousands of calls is slowed down
// instead of filling memory. The writer frees a slot as the answer goes
// out. The SDK answers every request it is given, a failed or cancelled
// one too, so every slot is freed; the answer to a request the client
// cancelled frees its slot and is then dropped. Notifications and the
// client's responses take no slot.
//
// Waiting cannot deadlock the server. (A client must read its answers as
// it sends, as with any pipe: one that writes all its requests before
// reading any waits for the server, which waits for room on stdout.) A
// running handler needs nothing more from the
// client unless the server has asked the client something (roots,
// sampling, elicitation, a ping), and the client's answer would be in the
// pipe behind the request being held. So while any request of the
// server's is unanswered the reader does not wait, and requests go past
// the bound until the client has answered (or the server has cancelled
// its request). jarvis's tools ask the client nothing, so in practice the
// bound holds; it gives way only where holding it could hang the session.
//
// Refusing requests over the bound with an error would also be safe, but
// no client retries them: a pipelining client would lose answers instead
// of waiting for them.
//
// A notifications/cancelled behind a held request waits with it; the
// request it cancels then ends no sooner than when a slot frees.
type flight struct {
	limit int
	held  func()        // called as a request starts to wait; nil for none
	done  chan struct{} // closed when the session ends
	close func()

	mu       sync.Mutex
	calls    map[jsonrpc.ID]struct{} // the client's requests not answered yet
	listens  map[jsonrpc.ID]struct{} // the client's open subscriptions/listen, which take no slot
	awaiting map[jsonrpc.ID]struct{} // the server's requests the client has not answered
	// cancelled are the client's requests in calls that the client has
	// cancelled: their answers are not sent.
	cancelled map[jsonrpc.ID]struct{}
	changed   chan struct{} // closed and replaced at every change
}

func newFlight(limit int, held func()) *flight {
	done := make(chan struct{})
	return &flight{
		limit:     limit,
		held:      held,
		done:      done,
		close:     sync.OnceFunc(func() { close(done) }),
		calls:     map[jsonrpc.ID]struct{}{},
		listens:   map[jsonrpc.ID]struct{}{},
		awaiting:  map[jsonrpc.ID]struct{}{},
		cancelled: map[jsonrpc.ID]struct{}{},
		changed:   make(chan struct{}),
	}
}

// admit counts the client's request id, first waiting while the session
// is full. It returns false, counting nothing, when id belongs to a
// request not answered yet. When the session ends while it waits, it
// returns true at once.
func (f *flight) admit(id jsonrpc.ID) bool {
	for waited := false; ; waited = true {
		f.mu.Lock()
		if f.inUse(id) {
			f.mu.Unlock()
			return false
		}
		if len(f.calls) < f.limit || len(f.awaiting) > 0 {
			f.calls[id] = struct{}{}
			f.mu.Unlock()
			return true
		}
		changed := f.changed
		f.mu.Unlock()
		if !waited && f.held != nil {
			f.held()
		}
		select {
		case <-changed:
		case <-f.done:
			return true
		}
	}
}

// inUse reports whether id names a request of the client's not answered
// yet; f.mu is held.
func (f *flight) inUse(id jsonrpc.ID) bool {
	_, call := f.calls[id]
	_, listen := f.listens[id]
	return call || listen
}

// listen records an open subscriptions/listen, which takes no slot (it
// stays open as long as the client wants its notifications) but keeps its
// id from being reused. It returns false when the id is in use. How many
// a session may hold is the server's bound, not the transport's.
func (f *flight) listen(id jsonrpc.ID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.inUse(id) {
		return false
	}
	f.listens[id] = struct{}{}
	return true
}

// answered frees the slot of the client's request id, and reports
// whether the client cancelled the request, when its answer is not sent.
func (f *flight) answered(id jsonrpc.ID) bool {
	f.mu.Lock()
	delete(f.listens, id)
	_, cancelled := f.cancelled[id]
	delete(f.cancelled, id)
	f.mu.Unlock()
	f.update(f.calls, id, false)
	return cancelled
}

// cancel records that the client cancelled its request id, when that
// request is not answered yet; a cancel of any other id is ignored.
func (f *flight) cancel(id jsonrpc.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, call := f.calls[id]
	_, listen := f.listens[id]
	if call || listen {
		f.cancelled[id] = struct{}{}
	}
}

// asked records that the server sent the client request id.
func (f *flight) asked(id jsonrpc.ID) { f.update(f.awaiting, id, true) }

// replied records that the server's request id needs no answer any more:
// the client answered it, or the server cancelled it.
func (f *flight) replied(id jsonrpc.ID) { f.update(f.awaiting, id, false) }

func (f *flight) update(set map[jsonrpc.ID]struct{}, id jsonrpc.ID, add bool) {
	if !id.IsValid() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, in := set[id]; in == add {
		return
	}
	if add {
		set[id] = struct{}{}
	} else {
		delete(set, id)
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

// drain waits until every request admitted is answered, for at most
// grace, or until the session ends.
func (f *flight) drain(grace time.Duration) {
	timer := time.NewTimer(grace)
	defer timer.Stop()
	for {
		f.mu.Lock()
		n, changed := len(f.calls), f.changed
		f.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-f.done:
			return
		}
	}
}

// isClosed reports whether the session has ended.
func (f *flight) isClosed() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}
