package embed

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jarvis-mcp/jarvis/internal/embed/embedtest"
)

// benchPassages are n passages of about 250 words, the chunker's target,
// each a little different.
func benchPassages(n int) []string {
	words := strings.Fields(`the meeting notes cover the quarterly budget review and the plan for
		migrating the database to the new cluster before the deadline while the team keeps
		shipping features and fixing bugs reported by users in the support queue`)
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for w := range 250 {
			b.WriteString(words[(w*7+i)%len(words)])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "note %d", i)
		out[i] = b.String()
	}
	return out
}

// BenchmarkLocalStatic embeds passages with a static model of
// potion-base-8M's shape and real tokenizer, 256 at a time, reporting
// passages a second (the target: at least 50,000 on 2 cores).
func BenchmarkLocalStatic(b *testing.B) {
	l, err := NewLocal(embedtest.RandomStatic(b, 256), LocalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	texts := benchPassages(256)
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if _, err := l.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "passages/s")
}

// BenchmarkLocalStaticQuery embeds one short query (the target: under
// 1 ms).
func BenchmarkLocalStaticQuery(b *testing.B) {
	l, err := NewLocal(embedtest.RandomStatic(b, 256), LocalOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := l.EmbedQuery(ctx, "how do we roll back a failed deployment"); err != nil {
			b.Fatal(err)
		}
	}
}
