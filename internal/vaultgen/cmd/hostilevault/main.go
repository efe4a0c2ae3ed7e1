// Command hostilevault writes the vault of vaultgen.Hostile into a folder,
// to measure `jarvis index` and `jarvis mcp` on it:
//
//	go run ./internal/vaultgen/cmd/hostilevault [-copies 16] DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/jarvis-mcp/jarvis/internal/vaultgen"
)

func main() {
	copies := flag.Int("copies", 1, "copies of the 8 MB link-dense note")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: hostilevault [-copies N] DIR")
		os.Exit(2)
	}
	notes, err := vaultgen.Hostile(flag.Arg(0), vaultgen.HostileOptions{LinkDenseCopies: *copies})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, n := range notes {
		fmt.Printf("%-20s %9d  %s\n", n.Path, n.Size, n.Shape)
	}
}
