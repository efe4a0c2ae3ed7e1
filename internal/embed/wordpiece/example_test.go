package wordpiece_test

import (
	"fmt"
	"log"

	"github.com/jarvis-mcp/jarvis/internal/embed/wordpiece"
)

func ExampleLoad() {
	// A model directory with vocab.txt and tokenizer_config.json (a
	// tokenizer.json would be preferred if it were there).
	tok, err := wordpiece.Load("testdata/all-MiniLM-L6-v2")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.Tokens("Hello, world!"))
	fmt.Println(tok.EncodeWithSpecial("Hello, world!", 0))
	// Output:
	// [hello , world !]
	// [101 7592 1010 2088 999 102]
}
