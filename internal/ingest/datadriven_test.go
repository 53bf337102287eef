package ingest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/ingest"
)

// TestDataDriven runs the behaviour files in testdata/. Commands:
//
//	feed [format=<f>] [stream=<id>] [tagged]   one raw event per input line ([DONE]: Flush); with any
//	                                          argument a fresh Normalizer is made first
//	flush                                     Normalizer.Flush
//	abort [reason=<r>]                        Normalizer.AbortOpen
//	restart                                   MarshalState + Restore (a process restart)
//	calls                                     the calls and outcomes an assembler would fold
//	                                          from everything fed since the last fresh feed
//	detect                                    Detect on each input line
//	read                                      ReadEvents over the input ("\r" marks CR)
//
// Regenerate with: go test ./ingest -run TestDataDriven -rewrite
func TestDataDriven(t *testing.T) {
	// testdata/ holds the behaviour files; subdirectories (the fuzzer's
	// corpus, testdata/fuzz) are not datadriven files.
	for _, path := range behaviourFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) { runBehaviourFile(t, path) })
	}
}

// behaviourFiles lists the datadriven files of testdata/.
func behaviourFiles(t testing.TB) []string {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, filepath.Join("testdata", e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatal("no behaviour files")
	}
	return out
}

func runBehaviourFile(t *testing.T, path string) {
	{
		var (
			cfg ingest.Config
			n   *ingest.Normalizer
			f   *fold
		)
		fresh := func() {
			n = ingest.New(cfg)
			f = newFold()
		}
		cfg.Format = ingest.FormatAuto
		fresh()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var b strings.Builder
			switch d.Cmd {
			case "feed":
				if len(d.CmdArgs) > 0 {
					cfg = ingest.Config{Format: ingest.FormatAuto}
					for _, a := range d.CmdArgs {
						switch a.Key {
						case "format":
							ff, err := ingest.ParseFormat(a.Vals[0])
							if err != nil {
								d.Fatalf(t, "%v", err)
							}
							cfg.Format = ff
						case "stream":
							cfg.Stream = a.Vals[0]
						case "tagged":
							cfg.TaggedText = true
						default:
							d.Fatalf(t, "unknown argument %s", a.Key)
						}
					}
					fresh()
				}
				for _, line := range strings.Split(d.Input, "\n") {
					if strings.TrimSpace(line) == "" {
						continue
					}
					if strings.TrimSpace(line) == "[DONE]" { // the stream's end, as ReadEvents and Stream.End see it
						out := n.Flush()
						f.add(out...)
						b.WriteString(render(out))
						continue
					}
					before, _ := n.MarshalState()
					out, err := n.Feed([]byte(line))
					if err != nil {
						after, _ := n.MarshalState()
						if string(before) != string(after) {
							t.Errorf("%s: state changed on error", d.Pos)
						}
						fmt.Fprintf(&b, "error: %s\n", errName(err))
						continue
					}
					f.add(out...)
					b.WriteString(render(out))
				}
			case "flush":
				out := n.Flush()
				f.add(out...)
				b.WriteString(render(out))
			case "abort":
				reason := events.ReasonMalformedEvent
				if d.HasArg("reason") {
					var s string
					d.ScanArgs(t, "reason", &s)
					reason = events.Reason(s)
				}
				out := n.AbortOpen(reason, "")
				f.add(out...)
				b.WriteString(render(out))
			case "restart":
				st, err := n.MarshalState()
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				if n, err = ingest.Restore(cfg, st); err != nil {
					d.Fatalf(t, "%v", err)
				}
				b.WriteString("restored\n")
			case "calls":
				b.WriteString(f.String())
			case "detect":
				for _, line := range strings.Split(d.Input, "\n") {
					if strings.TrimSpace(line) == "" {
						continue
					}
					ff, err := ingest.Detect([]byte(line))
					if err != nil {
						fmt.Fprintf(&b, "error: %s\n", errName(err))
						continue
					}
					fmt.Fprintf(&b, "%s\n", ff)
				}
			case "read":
				in := strings.ReplaceAll(d.Input, `\r`, "\r") + "\n"
				err := ingest.ReadEvents(strings.NewReader(in), func(raw []byte) error {
					fmt.Fprintf(&b, "%s\n", raw)
					return nil
				})
				if err != nil {
					fmt.Fprintf(&b, "error: %s\n", errName(err))
				}
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			if b.Len() == 0 {
				return "(none)\n"
			}
			return b.String()
		})
	}
}
