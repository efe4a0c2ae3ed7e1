package bert

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/jarvis-mcp/jarvis/internal/embed/linalg"
)

// scratch is the working memory of one Embed call. Sequences are stacked
// row after row (no padding), so every dense product runs once over all
// the batch's tokens; only attention works sequence by sequence.
type scratch struct {
	x     []float32 // T × h: the hidden states
	qkv   []float32 // T × 3h
	ctx   []float32 // T × h: attention's output before its projection
	tmp   []float32 // T × h
	inter []float32 // T × intermediate
	heads []headScratch
	units []attnUnit
}

// headScratch is one attention worker's memory for one (sequence, head).
type headScratch struct {
	q, k, v, out []float32 // L × headDim
	scores       []float32 // L × L
}

// attnUnit is one (sequence, head) pair of attention work.
type attnUnit struct {
	off, n, head int
}

// Thresholds of work below which a step stays on one goroutine: attention
// is counted in multiply-adds of q·kᵀ over the batch, row-wise steps in
// elements. Variables so that tests can force the parallel paths on tiny
// models.
var (
	parallelAttentionWork = 1 << 20
	parallelRowsWork      = 1 << 15
)

// scratchPool recycles scratch between calls, so that a steady stream of
// similar batches allocates almost nothing.
type scratchPool struct{ p sync.Pool }

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

func (sp *scratchPool) get(m *Model, batch [][]int32, total int) *scratch {
	s, _ := sp.p.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	h := m.cfg.HiddenSize
	s.x = grow(s.x, total*h)
	s.qkv = grow(s.qkv, total*3*h)
	s.ctx = grow(s.ctx, total*h)
	s.tmp = grow(s.tmp, total*h)
	s.inter = grow(s.inter, total*m.cfg.IntermediateSize)

	longest := 0
	work := 0
	s.units = s.units[:0]
	off := 0
	for _, seq := range batch {
		longest = max(longest, len(seq))
		work += len(seq) * len(seq)
		for hd := 0; hd < m.cfg.NumAttentionHeads; hd++ {
			s.units = append(s.units, attnUnit{off: off, n: len(seq), head: hd})
		}
		off += len(seq)
	}
	workers := 1
	// Attention runs on several goroutines only when there is enough of it
	// to pay for them (a short query is quicker on one).
	if work*h >= parallelAttentionWork {
		workers = min(runtime.GOMAXPROCS(0), len(s.units))
	}
	if cap(s.heads) < workers {
		s.heads = append(s.heads[:cap(s.heads)], make([]headScratch, workers-cap(s.heads))...)
	}
	s.heads = s.heads[:workers]
	dh := h / m.cfg.NumAttentionHeads
	for i := range s.heads {
		hs := &s.heads[i]
		hs.q = grow(hs.q, longest*dh)
		hs.k = grow(hs.k, longest*dh)
		hs.v = grow(hs.v, longest*dh)
		hs.out = grow(hs.out, longest*dh)
		hs.scores = grow(hs.scores, longest*longest)
	}
	return s
}

func (sp *scratchPool) put(s *scratch) { sp.p.Put(s) }

// forward leaves the final hidden states of every token in s.x.
func (m *Model) forward(ctx context.Context, s *scratch, batch [][]int32) error {
	h := m.cfg.HiddenSize
	inter := m.cfg.IntermediateSize
	total := len(s.x) / h

	// Embeddings: word + token type 0 + absolute position, then LayerNorm.
	off := 0
	for _, seq := range batch {
		for p, id := range seq {
			row := s.x[(off+p)*h : (off+p+1)*h]
			w := m.wordEmb[int(id)*h : (int(id)+1)*h]
			pe := m.posEmb[p*h : (p+1)*h]
			for j := range row {
				row[j] = w[j] + m.typeEmb0[j] + pe[j]
			}
		}
		off += len(seq)
	}
	layerNorm(s.x, s.x, m.embLNW, m.embLNB, total, h, m.eps)

	for i := range m.layers {
		if err := ctx.Err(); err != nil {
			return err
		}
		ly := &m.layers[i]
		ly.qkvW.Linear(s.qkv, s.x, ly.qkvB, total)
		m.attention(s)
		ly.attnOutW.Linear(s.tmp, s.ctx, ly.attnOutB, total)
		m.addNorm(s.x, s.tmp, ly.attnLNW, ly.attnLNB, total)

		ly.interW.Linear(s.inter, s.x, ly.interB, total)
		parallelRows(total, inter, func(lo, hi int) { m.act(s.inter[lo*inter : hi*inter]) })
		ly.outW.Linear(s.tmp, s.inter, ly.outB, total)
		m.addNorm(s.x, s.tmp, ly.outLNW, ly.outLNB, total)
	}
	return nil
}

// attention computes scaled dot-product attention for every (sequence,
// head) unit from s.qkv into s.ctx, spreading units over s.heads workers.
func (m *Model) attention(s *scratch) {
	if len(s.heads) == 1 {
		for _, u := range s.units {
			m.attendOne(s, &s.heads[0], u)
		}
		return
	}
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for w := range s.heads {
		wg.Add(1)
		go func(hs *headScratch) {
			defer wg.Done()
			for {
				next.Lock()
				if i == len(s.units) {
					next.Unlock()
					return
				}
				u := s.units[i]
				i++
				next.Unlock()
				m.attendOne(s, hs, u)
			}
		}(&s.heads[w])
	}
	wg.Wait()
}

// attendOne is softmax(q·kᵀ/√d)·v for one head of one sequence.
func (m *Model) attendOne(s *scratch, hs *headScratch, u attnUnit) {
	h := m.cfg.HiddenSize
	dh := h / m.cfg.NumAttentionHeads
	n := u.n
	q, k, v := hs.q[:n*dh], hs.k[:n*dh], hs.v[:n*dh]
	col := u.head * dh
	for t := 0; t < n; t++ {
		row := s.qkv[(u.off+t)*3*h:]
		copy(q[t*dh:(t+1)*dh], row[col:col+dh])
		copy(k[t*dh:(t+1)*dh], row[h+col:h+col+dh])
		copy(v[t*dh:(t+1)*dh], row[2*h+col:2*h+col+dh])
	}
	scores := hs.scores[:n*n]
	linalg.Linear(scores, q, k, nil, n, dh, n) // q·kᵀ
	scale := float32(1 / math.Sqrt(float64(dh)))
	for r := 0; r < n; r++ {
		softmaxScaled(scores[r*n:(r+1)*n], scale)
	}
	out := hs.out[:n*dh]
	linalg.MatMul(out, scores, v, n, n, dh)
	for t := 0; t < n; t++ {
		copy(s.ctx[(u.off+t)*h+col:(u.off+t)*h+col+dh], out[t*dh:(t+1)*dh])
	}
}

// softmaxScaled replaces row with softmax(row·scale).
func softmaxScaled(row []float32, scale float32) {
	hi := float32(math.Inf(-1))
	for _, v := range row {
		hi = max(hi, v)
	}
	var sum float32
	for j, v := range row {
		e := expf((v - hi) * scale)
		row[j] = e
		sum += e
	}
	inv := 1 / sum
	for j := range row {
		row[j] *= inv
	}
}

// addNorm sets x = LayerNorm(y + x), the residual step closing each
// sub-layer; y is clobbered.
func (m *Model) addNorm(x, y, w, b []float32, rows int) {
	h := m.cfg.HiddenSize
	parallelRows(rows, h, func(lo, hi int) {
		ys, xs := y[lo*h:hi*h], x[lo*h:hi*h]
		for i := range ys {
			ys[i] += xs[i]
		}
		layerNorm(xs, ys, w, b, hi-lo, h, m.eps)
	})
}

// parallelRows runs fn over [0, rows) split into one contiguous range per
// core, when rows×width elements are enough to repay the goroutines.
func parallelRows(rows, width int, fn func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), rows)
	if workers <= 1 || rows*width < parallelRowsWork {
		fn(0, rows)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := rows*w/workers, rows*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// layerNorm normalises each of rows rows of x (width n) to zero mean and
// unit variance (biased, as PyTorch's), then scales and shifts; dst may be
// x.
func layerNorm(dst, x, w, b []float32, rows, n int, eps float32) {
	for r := 0; r < rows; r++ {
		xr := x[r*n : (r+1)*n]
		var sum float64
		for _, v := range xr {
			sum += float64(v)
		}
		mean := sum / float64(n)
		var sq float64
		for _, v := range xr {
			d := float64(v) - mean
			sq += d * d
		}
		inv := 1 / math.Sqrt(sq/float64(n)+float64(eps))
		dr := dst[r*n : (r+1)*n]
		for j, v := range xr {
			dr[j] = float32((float64(v)-mean)*inv)*w[j] + b[j]
		}
	}
}
