package vaultgen

import (
	"encoding/binary"
	"encoding/json"
	"hash/adler32"
	"hash/crc32"
	"math/rand/v2"
	"strconv"
	"strings"
)

// attachmentBytes returns the content of attachment a: small, valid files
// of their type, written by hand so that no compressor or encoder version
// can change a byte.
func (g *generator) attachmentBytes(a attachment, r *rand.Rand) []byte {
	switch a.kind {
	case kindPNG:
		return pngBytes(4+r.IntN(13), 4+r.IntN(13), [3]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))})
	case kindPDF:
		return pdfBytes(a.title + " - page 1")
	default:
		return g.canvasBytes(r)
	}
}

// pngBytes encodes a w x h RGB image as a PNG whose zlib stream uses one
// stored (uncompressed) deflate block.
func pngBytes(w, h int, c [3]byte) []byte {
	raw := make([]byte, 0, h*(1+3*w))
	for y := range h {
		raw = append(raw, 0) // filter type None
		for x := range w {
			raw = append(raw, c[0]^byte(x*16), c[1]^byte(y*16), c[2])
		}
	}
	z := []byte{0x78, 0x01} // zlib header: deflate, 32K window, no dictionary
	n := uint16(len(raw))
	z = append(z, 1, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8)) // final stored block
	z = append(z, raw...)
	z = binary.BigEndian.AppendUint32(z, adler32.Checksum(raw))

	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, deflate, adaptive filter, no interlace

	out := []byte("\x89PNG\r\n\x1a\n")
	out = pngChunk(out, "IHDR", ihdr)
	out = pngChunk(out, "IDAT", z)
	return pngChunk(out, "IEND", nil)
}

func pngChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// pdfBytes writes a one-page PDF 1.4 showing text, with a correct
// cross-reference table.
func pdfBytes(text string) []byte {
	var safe strings.Builder
	for _, c := range text {
		switch {
		case c == '(' || c == ')' || c == '\\':
			safe.WriteByte('\\')
			safe.WriteRune(c)
		case c >= 0x20 && c < 0x7f:
			safe.WriteRune(c)
		default:
			safe.WriteByte('?')
		}
	}
	stream := "BT /F1 18 Tf 72 720 Td (" + safe.String() + ") Tj ET\n"
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length " + strconv.Itoa(len(stream)) + " >>\nstream\n" + stream + "endstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	out := []byte("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = len(out)
		out = append(out, strconv.Itoa(i+1)+" 0 obj\n"+o+"\nendobj\n"...)
	}
	xref := len(out)
	out = append(out, "xref\n0 "+strconv.Itoa(len(objects)+1)+"\n0000000000 65535 f \n"...)
	for _, off := range offsets {
		s := strconv.Itoa(off)
		out = append(out, strings.Repeat("0", 10-len(s))+s+" 00000 n \n"...)
	}
	out = append(out, "trailer\n<< /Size "+strconv.Itoa(len(objects)+1)+" /Root 1 0 R >>\nstartxref\n"+strconv.Itoa(xref)+"\n%%EOF\n"...)
	return out
}

// canvasNode and canvasEdge follow the JSON Canvas format Obsidian uses.
type canvasNode struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	File   string `json:"file,omitempty"`
	Text   string `json:"text,omitempty"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

type canvasEdge struct {
	ID       string `json:"id"`
	FromNode string `json:"fromNode"`
	FromSide string `json:"fromSide"`
	ToNode   string `json:"toNode"`
	ToSide   string `json:"toSide"`
}

// canvasBytes lays out a few existing notes and a text card, joined by
// edges. The file references are not counted as links.
func (g *generator) canvasBytes(r *rand.Rand) []byte {
	var c struct {
		Nodes []canvasNode `json:"nodes"`
		Edges []canvasEdge `json:"edges"`
	}
	for i := range 2 + r.IntN(4) {
		n := canvasNode{ID: randomHex(r), X: i%3*460 - 460, Y: i/3*340 - 170, Width: 400, Height: 300}
		if i == 0 || len(g.notes) == 0 {
			n.Type, n.Text = "text", "## "+capitalize(pick(r, topics))+"\n\n"+capitalize(pick(r, clauses))+"."
		} else {
			n.Type, n.File = "file", g.notes[r.IntN(len(g.notes))].linkPath+".md"
		}
		c.Nodes = append(c.Nodes, n)
	}
	for i := 1; i < len(c.Nodes); i++ {
		c.Edges = append(c.Edges, canvasEdge{ID: randomHex(r), FromNode: c.Nodes[0].ID, FromSide: "right", ToNode: c.Nodes[i].ID, ToSide: "left"})
	}
	out, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		panic("vaultgen: marshal canvas: " + err.Error()) // plain structs of strings and ints cannot fail
	}
	return append(out, '\n')
}

func randomHex(r *rand.Rand) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 16)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}
