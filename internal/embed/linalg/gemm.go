package linalg

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Every micro-kernel computes one tile of mr rows by nr columns of the
// output. The packed layouts below are built for that tile, whichever
// kernel runs it.
const (
	mr = 6
	nr = 16
)

// Cache blocking. A kc-step slice of one packed B panel (kc×nr floats,
// 16 KiB at kc = 256) stays in L1 while every mr-row tile of a block of A
// streams past it; that block (mcMax rows by kc, 192 KiB) stays in L2
// while the panels go by. A is read where it lies, not packed: only B's
// columns need gathering into panels.
const (
	kcMax = 256
	mcMax = 32 * mr
)

// minFlopsPerWorker is the least work worth handing to another goroutine:
// below it, starting and joining one costs more than it saves.
const minFlopsPerWorker = 1 << 19

// microKernel sets the mr×nr tile
//
//	c[r*ldc+j] = init[r*ldi+j] + Σ_q a[r*lda+q]·b[q*nr+j]
//
// for r < mr, j < nr and q < kc, where a holds mr rows of A (row stride
// lda) and b holds kc steps of a packed B panel. A nil init starts the
// sums at zero; ldi = 0 starts every row from the same nr values (a bias).
type microKernel func(kc int, a []float32, lda int, b, c []float32, ldc int, init []float32, ldi int)

// product is one call's c = a·B + bias, where B is k×n and given either as
// w (n×k, B = wᵀ, Linear's weights), as b (k×n, MatMul's right operand) or
// already packed into panels (Weights). a is m×k and c is m×n, both with
// rows stored contiguously.
type product struct {
	m, n, k int
	a, c    []float32
	bias    []float32
	w       []float32
	b       []float32
	packed  []float32
}

// workspace is one goroutine's scratch space, kept in a pool so that a
// steady stream of calls allocates nothing: packed B panels, the last rows
// of A padded to a whole tile, and a tile for the edges of c.
type workspace struct {
	a    [mr * kcMax]float32
	b    []float32
	tile [mr * nr]float32
	init [mr * nr]float32
}

var workspaces = sync.Pool{New: func() any {
	return new(workspace)
}}

// panelCount is the number of nr-wide column panels n columns take.
func panelCount(n int) int { return (n + nr - 1) / nr }

// packPanels lays panels [j0, j1) of B out in dst, each as k steps of nr
// consecutive values (step q of panel j holds B[q][j*nr : j*nr+nr]),
// zero-padded past column n.
func (p *product) packPanels(dst []float32, j0, j1 int) {
	for j := j0; j < j1; j++ {
		d := dst[(j-j0)*p.k*nr:][:p.k*nr]
		c0 := j * nr
		cols := min(nr, p.n-c0)
		if cols < nr {
			clear(d)
		}
		if p.w != nil {
			packPanelTransposed(d, p.w, p.k, c0, cols)
		} else {
			for q := 0; q < p.k; q++ {
				copy(d[q*nr:q*nr+cols], p.b[q*p.n+c0:][:cols])
			}
		}
	}
}

// packPanelTransposed fills one panel from rows c0..c0+cols of w (each k
// long), so that d[q*nr+t] = w[(c0+t)*k+q]. It takes the rows four at a
// time, writing four neighbours of each step together, and walks k in
// chunks so that the panel lines being written stay in L1.
func packPanelTransposed(d, w []float32, k, c0, cols int) {
	if cols == nr && fastTranspose != nil {
		fastTranspose(d, w, k, c0)
		return
	}
	const chunk = 64
	for q0 := 0; q0 < k; q0 += chunk {
		qn := min(chunk, k-q0)
		dd := d[q0*nr:][:qn*nr]
		t := 0
		for ; t+4 <= cols; t += 4 {
			w0 := w[(c0+t)*k+q0:][:qn]
			w1 := w[(c0+t+1)*k+q0:][:qn]
			w2 := w[(c0+t+2)*k+q0:][:qn]
			w3 := w[(c0+t+3)*k+q0:][:qn]
			for q, v := range w0 {
				o := dd[q*nr+t : q*nr+t+4 : q*nr+t+4]
				o[0], o[1], o[2], o[3] = v, w1[q], w2[q], w3[q]
			}
		}
		for ; t < cols; t++ {
			for q, v := range w[(c0+t)*k+q0:][:qn] {
				dd[q*nr+t] = v
			}
		}
	}
}

// kStep splits k into near-equal blocks of at most kcMax.
func kStep(k int) int {
	blocks := (k + kcMax - 1) / kcMax
	return (k + blocks - 1) / blocks
}

// run computes rows [r0, r1) and column panels [j0, j1) of c on the
// calling goroutine. pb holds packed panels from panel pbFirst on, or is
// nil, and then run packs the panels it needs into ws.
func (p *product) run(kern microKernel, ws *workspace, r0, r1, j0, j1 int, pb []float32, pbFirst int) {
	k, n := p.k, p.n
	if pb == nil {
		need := (j1 - j0) * k * nr
		if cap(ws.b) < need {
			ws.b = make([]float32, need)
		}
		pb = ws.b[:need]
		p.packPanels(pb, j0, j1)
		pbFirst = j0
	}
	kc := kStep(k)
	for ic := r0; ic < r1; ic += mcMax {
		mb := min(mcMax, r1-ic)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			for j := j0; j < j1; j++ {
				bp := pb[(j-pbFirst)*k*nr+pc*nr:][:kb*nr]
				c0 := j * nr
				cols := min(nr, n-c0)
				for ir := 0; ir < mb; ir += mr {
					row := ic + ir
					rows := min(mr, mb-ir)
					ap, lda := p.a[row*k+pc:], k
					if rows < mr {
						ap, lda = ws.padRows(p.a, k, row, rows, pc, kb), kb
					}
					if rows == mr && cols == nr {
						cc := p.c[row*n+c0:]
						var init []float32
						ldi := 0
						if pc > 0 {
							init, ldi = cc, n
						} else if p.bias != nil {
							init = p.bias[c0 : c0+nr]
						}
						kern(kb, ap, lda, bp, cc, n, init, ldi)
						continue
					}
					p.edgeTile(kern, ws, kb, ap, lda, bp, row, rows, c0, cols, pc > 0)
				}
			}
		}
	}
}

// padRows copies columns [p0, p0+kb) of the last rows of a (row stride
// lda), from row on, into a whole tile's worth of rows, zero past them,
// so that the kernel never reads past the end of a. It returns the copy,
// whose row stride is kb.
func (ws *workspace) padRows(a []float32, lda, row, rows, p0, kb int) []float32 {
	d := ws.a[:mr*kb]
	for r := 0; r < rows; r++ {
		copy(d[r*kb:(r+1)*kb], a[(row+r)*lda+p0:][:kb])
	}
	clear(d[rows*kb:])
	return d
}

// edgeTile runs a tile that sticks out past the last row or column of c
// through the workspace's full-size tile, and copies back the part that
// exists.
func (p *product) edgeTile(kern microKernel, ws *workspace, kb int, ap []float32, lda int, bp []float32, row, rows, c0, cols int, accumulate bool) {
	n := p.n
	var init []float32
	ldi := 0
	switch {
	case accumulate:
		init, ldi = ws.init[:], nr
		for r := 0; r < rows; r++ {
			copy(init[r*nr:r*nr+cols], p.c[(row+r)*n+c0:][:cols])
		}
	case p.bias != nil:
		init = ws.init[:nr]
		clear(init)
		copy(init, p.bias[c0:c0+cols])
	}
	t := ws.tile[:]
	kern(kb, ap, lda, bp, t, nr, init, ldi)
	for r := 0; r < rows; r++ {
		copy(p.c[(row+r)*n+c0:][:cols], t[r*nr:r*nr+cols])
	}
}

// do computes the whole product with kern, on as many goroutines as the
// work and GOMAXPROCS allow.
func (p *product) do(kern microKernel) {
	m, n, k := p.m, p.n, p.k
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for r := 0; r < m; r++ {
			if p.bias != nil {
				copy(p.c[r*n:(r+1)*n], p.bias)
			} else {
				clear(p.c[r*n : (r+1)*n])
			}
		}
		return
	}
	panels := panelCount(n)
	tiles := (m + mr - 1) / mr
	workers := runtime.GOMAXPROCS(0)
	if flops := 2 * m * n * k; flops/minFlopsPerWorker < workers {
		workers = max(1, flops/minFlopsPerWorker)
	}
	if workers == 1 || tiles*panels == 1 {
		ws := workspaces.Get().(*workspace)
		p.run(kern, ws, 0, m, 0, panels, p.packed, 0)
		workspaces.Put(ws)
		return
	}
	p.split(kern, workers)
}

// unitsPerWorker is how many pieces split cuts a product into for each
// goroutine. Goroutines take pieces as they come free, so one that starts
// late (waking an idle thread can take longer than a small product) or
// shares its core with another process just takes fewer pieces.
const unitsPerWorker = 4

// split runs the product on workers goroutines, the calling one included.
// It takes p by value so that only a product that is split escapes to the
// heap.
func (p product) split(kern microKernel, workers int) {
	m, n, k := p.m, p.n, p.k
	panels := panelCount(n)
	tiles := (m + mr - 1) / mr
	want := unitsPerWorker * workers
	ws := workspaces.Get().(*workspace)
	defer workspaces.Put(ws)

	// A piece is a block of rows (whole tiles) by a group of panels.
	// Cutting the rows makes each piece read all of B, cutting the columns
	// all of A, so the larger operand is cut first.
	var rowBlocks, panelGroups int
	pb := p.packed
	if pb == nil && m < n {
		// More weights than inputs, still to be gathered: cut the columns
		// only, and let each piece gather its own panels.
		rowBlocks, panelGroups = 1, min(panels, want)
	} else {
		if pb == nil {
			need := panels * k * nr
			if cap(ws.b) < need {
				ws.b = make([]float32, need)
			}
			pb = ws.b[:need]
			p.packPanels(pb, 0, panels)
		}
		if m >= n {
			rowBlocks = min(tiles, want)
			panelGroups = min(panels, (want+rowBlocks-1)/rowBlocks)
		} else {
			panelGroups = min(panels, want)
			rowBlocks = min(tiles, (want+panelGroups-1)/panelGroups)
		}
	}
	rowStep := (tiles + rowBlocks - 1) / rowBlocks * mr
	panelStep := (panels + panelGroups - 1) / panelGroups
	rowUnits := (m + rowStep - 1) / rowStep
	units := rowUnits * ((panels + panelStep - 1) / panelStep)

	// Pieces are claimed from next and counted off in done; whoever
	// finishes the last one closes finished. The caller waits for that,
	// not for the other goroutines: one that is only scheduled after all
	// the pieces are gone finds nothing to do and touches nothing.
	var next, done atomic.Int64
	finished := make(chan struct{})
	work := func(ws *workspace) {
		for {
			u := int(next.Add(1) - 1)
			if u >= units {
				return
			}
			r0 := u % rowUnits * rowStep
			j0 := u / rowUnits * panelStep
			p.run(kern, ws, r0, min(m, r0+rowStep), j0, min(panels, j0+panelStep), pb, 0)
			if int(done.Add(1)) == units {
				close(finished)
			}
		}
	}
	for range min(workers, units) - 1 {
		go func() {
			ws := workspaces.Get().(*workspace)
			work(ws)
			workspaces.Put(ws)
		}()
	}
	work(ws)
	<-finished
}
