// Command gen writes the AsyncAPI document of the event catalogue
// (go generate ./internal/asyncapi): go run ./gen -o ../../docs/asyncapi.yaml, run in
// internal/asyncapi/, reading the comments of ../../events.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/toolstream/toolstream/internal/asyncapi"
)

func main() {
	out := flag.String("o", "", "the file to write (default: standard output)")
	src := flag.String("events", "../../events", "the source directory of package events (its doc comments)")
	flag.Parse()
	doc, err := asyncapi.Document(*src)
	if err == nil {
		if *out == "" {
			_, err = os.Stdout.Write(doc)
		} else {
			err = os.WriteFile(*out, doc, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
