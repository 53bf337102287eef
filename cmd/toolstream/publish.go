package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/ingest"
)

func publishCmd(g *globals) *cobra.Command {
	var s client.Stream
	var provider string
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "publish [--raw] [--provider P] [--tenant T] [--stream ID] FILE|-",
		Aliases: []string{"ingest"},
		Short:   "Publish a provider stream (JSON lines or raw SSE) to a running server, normalised and sealed",
		Long: `publish reads a provider's streaming events from FILE or stdin (JSON lines or raw SSE), normalises
them here as the server's ingest would, and publishes the canonical model events, sealed under the
user's data key, to ts.model.<tenant>.<response>.<item> (normalising at the edge: the raw events never
reach the log). The server assembles the calls (see toolstream calls).

--raw publishes each raw event verbatim to ts.in.<tenant>.<format>.<stream> instead, numbered in a
Ts-Seq header, followed by an end-of-stream marker: what a producer that cannot normalise does, in any
language; the server's ingest normalises them (they stay in TS_IN, in the clear, for --raw-retention).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			s.Format, s.Tagged = ingest.Provider(provider, s.Tagged)
			if _, err := ingest.ParseFormat(s.Format); err != nil {
				return badInput("--provider %q: want auto, openai-responses, openai-chat, anthropic, gemini or tagged", provider)
			}
			var in io.Reader = os.Stdin
			name := "standard input"
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return badInput("%w", err)
				}
				defer f.Close()
				in, name = f, args[0]
				if s.ID == "" {
					s.ID = filepath.Base(args[0])
				}
			}
			if s.ID == "" {
				s.ID = "stdin"
			}
			br := bufio.NewReader(in)
			if err := looksLikeEvents(br, name); err != nil {
				return err
			}
			in = br
			c, done, err := g.client(cmd.Context(), log, asProducer(s.Tenant))
			if err != nil {
				return err
			}
			defer done()
			pub, err := c.Publish(cmd.Context(), in, client.WithStream(s))
			if err != nil {
				return cutShort(err, pub)
			}
			if pub.Raw == 0 {
				return badInput("%s holds no provider events (JSON lines or server-sent events): nothing was published", name)
			}
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(map[string]any{"tenant": s.Tenant, "stream": s.ID, "raw": s.Raw,
					"raw_events": pub.Raw, "events": pub.Model, "last_seq": pub.Last, "last_stream": pub.Stream, "duplicates": pub.Duplicates})
			}
			if pub.Duplicates > 0 {
				defer alreadyInLog(g.stdout, s, pub)
			}
			if s.Raw {
				fmt.Fprintf(g.stdout, "published %d raw events of stream %q for tenant %s (end at %s)\n", pub.Raw, s.ID, s.Tenant, seqOf(pub))
				return nil
			}
			fmt.Fprintf(g.stdout, "published %d raw events of stream %q for tenant %s as %d model events (last at %s)\n", pub.Raw, s.ID, s.Tenant, pub.Model, seqOf(pub))
			return nil
		},
	}
	cmd.Flags().StringVar(&provider, "provider", "auto", "provider format: auto, openai-responses, openai-chat, anthropic, gemini, tagged")
	cmd.Flags().StringVar(&s.Tenant, "tenant", "default", "tenant")
	cmd.Flags().BoolVar(&s.Raw, "raw", false, "publish the raw events verbatim to ts.in (the server's ingest normalises them) instead of normalising here")
	cmd.Flags().StringVar(&s.ID, "stream", "", "stream id (default: the file name)")
	cmd.Flags().BoolVar(&s.Tagged, "tagged", false, "read <tool_call>{…}</tool_call> blocks in the text")
	cmd.Flags().StringVar(&s.User, "user", "", "end user, carried in every event")
	cmd.Flags().StringVar(&s.Session, "session", "", "session, carried in every event")
	cmd.Flags().StringVar(&s.Run, "run", "", "agent run, carried in every event (part of the idempotency key)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was published as JSON")
	cmd.Flags().StringVar(&s.Step, "step", "", "step of the run (part of the idempotency key)")
	return cmd
}

// seqOf is where the log stored pub's last event: "seq N of STREAM". It
// said "seq N" alone, the sequence of the tenant's ingress stream, which
// a newcomer compared with trace's model seq (TS_MODEL's copy, another
// number) and found no such event.
func seqOf(pub client.Published) string {
	if pub.Stream == "" {
		return fmt.Sprintf("seq %d", pub.Last)
	}
	return fmt.Sprintf("seq %d of %s", pub.Last, pub.Stream)
}

// alreadyInLog says what a publish whose events the log held already
// stored. A stream's message ids come from its tenant, its --stream id (the
// file's name by default) and each event's place, under the credential's
// key, not from --user, --session or --run: so the same command again
// (a resume) stores each event once, and so does the same file published
// for another user, which stored nothing and said only "stored once" (a
// newcomer took it for yan's stream published). When nothing new was
// stored it now says so, and why another user's copy cannot be: a
// response is assembled once, whoever publishes it again.
func alreadyInLog(w io.Writer, s client.Stream, pub client.Published) {
	fmt.Fprintf(w, "%d of them were already in the log (stream %q was published before with this credential, under whatever --user or --run); stored once\n", pub.Duplicates, s.ID)
	sent := pub.Model
	if s.Raw {
		sent = pub.Raw // and the end-of-stream marker
	}
	if pub.Duplicates >= sent {
		fmt.Fprintf(w, "nothing new was stored: the log keeps a stream once per --stream id (a resume, or the same file again, adds nothing; for another --user or --run neither, since a response is assembled once: publish a response of its own for each user)\n")
	}
}

// cutShort is the error of a publish that stopped part way: the server
// went away (stopped, killed) or the command was interrupted. It said
// "server is disconnected" and exited 1, with no word of what the log kept;
// it now says how many events the log acknowledged (kept: nothing
// acknowledged is lost) and how to resume: the same command again, whose
// message ids the log recognises within its duplicate window, so what it
// holds is stored once. Exit code 7, or the error's own where it has one
// (a refused identity, bad input) and nothing was acknowledged.
func cutShort(err error, pub client.Published) error {
	code := exitCode(err)
	if code != 1 && pub.Model == 0 {
		return err
	}
	if code == 1 {
		code = exitCutShort
	}
	return &exitError{code, fmt.Errorf("%w; publishing stopped after %d raw events were read: the log acknowledged %d model events (last at %s) and keeps them; "+
		"to resume, run the same command again within %d minutes: what the log holds already is recognised and stored once",
		err, pub.Raw, pub.Model, seqOf(pub), int(bus.DuplicateWindowDefault.Minutes()))}
}

// looksLikeEvents checks, before anything is published, that the input
// starts as a provider stream does: a JSON line, or a server-sent event's
// field (data:, event:, id:, retry:) or comment. A tools file, a YAML or a
// text file is refused naming what it starts with (it published nothing and
// exited 0).
func looksLikeEvents(br *bufio.Reader, name string) error {
	head, _ := br.Peek(4096)
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	for line := range bytes.Lines(head) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '{' || t[0] == '[' || t[0] == ':' {
			return nil
		}
		for _, field := range []string{"data:", "event:", "id:", "retry:", "data", "event"} {
			if bytes.HasPrefix(t, []byte(field)) && (len(field) > 0 && field[len(field)-1] == ':' || len(t) == len(field)) {
				return nil
			}
		}
		if len(t) > 40 {
			t = append(t[:40:40], "…"...)
		}
		hint := ""
		if bytes.HasPrefix(t, []byte("tools:")) || bytes.HasPrefix(t, []byte("grants:")) {
			hint = " (a tools file is read by serve --tools FILE)"
		}
		return badInput("%s is not a provider stream (JSON lines or server-sent events): it starts with %q%s", name, t, hint)
	}
	return nil // empty: said after publishing nothing
}
