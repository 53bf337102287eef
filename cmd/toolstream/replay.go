package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/internal/bus"
	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/internal/viewdump"
	"github.com/toolstream/toolstream/projector"
)

func replayCmd(g *globals) *cobra.Command {
	var name, into, until, progress string
	d := &deps{g: g}
	var verify, diff, dump, offline bool
	var diffMax int
	cmd := &cobra.Command{
		Use:   "replay --projection NAME [--until SEQ|TIME] [--verify | --diff] [--dump]",
		Short: "Rebuild a projection's view from the log: as it is, as it was (--until), or against the live one (--verify, --diff)",
		Long: `replay rebuilds a projection from the log, from sequence 1, into a scratch directory (--into, or a
temporary one removed after) with this binary's code, and prints the rebuilt view's digest. An
--into directory an earlier replay of the same projection left (stopped by --until, or interrupted)
is resumed from its checkpoint: give it the same flags.

  --until SEQ|TIME  rebuild the view as it was: up to a stream sequence, or up to the last message
                    stored at or before an RFC 3339 time (e.g. 2026-11-30T15:00:00Z).
                    Default: the live view's checkpoint, else the end of the log.
  --verify          compare the rebuilt view's digest with the live view's; exit 2 on a difference.
  --diff            compare the rebuilt view with the live view key by key and print what differs
                    (keys only in the rebuild, keys only in the live view, changed values, decoded
                    where possible): what an upgrade of the assembler or the verifier changes. Exit 2
                    when they differ.
  --dump            print every row of the rebuilt view, decoded where possible.

The live view is read from the running serve (the view's tsv.digest.NAME and tsv.dump.NAME). With
--offline, when no serve runs on --data, replay reads the log from --data's files itself (holding
--data meanwhile) and the live view from --data/views/NAME. A progress bar with rate and ETA is drawn on stderr when it
is a terminal; otherwise a plain line is printed every second.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			if verify && diff {
				return badInput("--verify and --diff: pick one (--diff also says whether the views are equal)")
			}
			if until != "" && (verify || diff) {
				return badInput("--until: --verify and --diff compare with the live view at its checkpoint")
			}
			if d.quota, err = d.quotaFlags.quotas(); err != nil {
				return err
			}
			if d.policies, err = d.verify.policies(); err != nil {
				return err
			}
			if d.memory, err = d.memFlags.config(); err != nil {
				return err
			}
			ctx := cmd.Context()
			var b *bus.Bus
			if offline {
				// No serve runs on --data: replay owns it meanwhile and reads the
				// log from its files on an embedded server of its own.
				release, err := lockData(g.data, "replay --offline")
				if err != nil {
					return err
				}
				defer release()
				b, err = g.openEmbedded(ctx, log, g.data, "127.0.0.1:-1", asReader)
				if err != nil {
					return err
				}
			} else if b, err = g.connect(ctx, log, asReader); err != nil {
				return err
			}
			defer b.Close()
			d.log = log
			if d.trust, err = g.registryTrust(log, nil); err != nil {
				return err
			}
			p, err := newProjection(name, d)
			if err != nil {
				return err
			}
			kept := into
			if into == "" {
				tmp, err := os.MkdirTemp("", "toolstream-replay-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				into = filepath.Join(tmp, name)
			}
			// An --into that an earlier replay of this projection left is
			// resumed from its checkpoint; any other used directory is
			// refused (projector.ErrNotReplay).
			rep, err := projector.NewReplayer(projector.Config{JS: b.JS, Dir: into, Logger: log, Keys: b.Keys}, p)
			if err != nil {
				return fmt.Errorf("--into %s: %w", into, err)
			}
			defer rep.Close()
			rp := &replayer{g: g, b: b, name: name, rep: rep, into: kept, progress: progress}
			switch {
			case diff:
				return rp.diff(ctx, diffMax)
			case verify:
				return rp.verify(ctx)
			}
			return rp.asOf(ctx, until, dump)
		},
	}
	cmd.Flags().StringVar(&name, "projection", "", "projection to rebuild: "+fmt.Sprint(projectionNames()))
	cmd.Flags().BoolVar(&verify, "verify", false, "compare the rebuilt view's digest with the live view's; exit 2 on a difference")
	cmd.Flags().BoolVar(&diff, "diff", false, "compare the rebuilt view with the live view key by key; exit 2 on a difference")
	cmd.Flags().BoolVar(&dump, "dump", false, "print every row of the rebuilt view")
	cmd.Flags().IntVar(&diffMax, "diff-max", 200, "print at most this many differing keys (all are counted)")
	cmd.Flags().StringVar(&until, "until", "", "rebuild up to this stream sequence or RFC 3339 time (default: the live view's checkpoint)")
	cmd.Flags().StringVar(&into, "into", "", "directory for the rebuilt view, empty or an earlier replay's to resume (default: a temporary one, removed after)")
	cmd.Flags().BoolVar(&offline, "offline", false, "read the log from --data's files with no serve running (replay then holds --data; the live view is --data/views/NAME)")
	cmd.Flags().StringVar(&progress, "progress", "auto", "progress on stderr: auto (a bar on a terminal, lines otherwise), bar, lines, none")
	cmd.Flags().DurationVar(&d.idleTimeout, "idle-timeout", 2*time.Minute, "the assembler's idle deadline: must be serve's")
	cmd.Flags().IntVar(&d.argsMax, "args-max", 1<<20, "the assembler's argument limit: must be serve's")
	cmd.Flags().StringSliceVar(&d.lenient, "lenient-tenants", nil, "tenants whose almost-JSON arguments the assembler repairs: must be serve's")
	addQuotaFlags(cmd, &d.quotaFlags, true)
	verifyPolicyFlag(cmd, &d.verify, true)
	memoryFlag(cmd, &d.memFlags, true)
	cmd.MarkFlagRequired("projection")
	return cmd
}

type replayer struct {
	g        *globals
	b        *bus.Bus
	name     string
	rep      *projector.Replayer
	into     string // --into: the replay is kept there ("": a temporary one)
	progress string
}

// asOf rebuilds the view up to until (a sequence, a time, or "": the live
// checkpoint, else the end of the log) and prints its digest.
func (rp *replayer) asOf(ctx context.Context, until string, dump bool) error {
	var target uint64
	switch {
	case until == "":
		live, err := rp.liveDigest(ctx)
		if err == nil {
			target = live.Seq
		} else if target, err = rp.rep.LastSeq(ctx); err != nil {
			return err
		}
	default:
		seq, err := parseUntil(ctx, rp.rep, until)
		if err != nil {
			return err
		}
		target = seq
		if _, perr := strconv.ParseUint(until, 10, 64); perr != nil {
			fmt.Fprintf(rp.g.stdout, "until %s: the last message stored at or before it is seq %d\n", until, seq)
		}
	}
	rebuilt, err := rp.rebuild(ctx, target)
	if err != nil {
		return err
	}
	fmt.Fprintf(rp.g.stdout, "replayed %s: %v\n", rp.name, rebuilt)
	if !dump {
		return nil
	}
	v := rp.rep.View()
	defer v.Close()
	return v.Rows(nil, func(k, val []byte) error {
		_, err := fmt.Fprintln(rp.g.stdout, stack.FormatRow(rp.name, k, val))
		return err
	})
}

// verify rebuilds up to the live view's checkpoint and compares digests.
func (rp *replayer) verify(ctx context.Context) error {
	live, err := rp.liveDigest(ctx)
	if err != nil {
		return err
	}
	rebuilt, err := rp.rebuild(ctx, live.Seq)
	if err != nil {
		return err
	}
	fmt.Fprintf(rp.g.stdout, "replayed %s: %v\n", rp.name, rebuilt)
	fmt.Fprintf(rp.g.stdout, "live     %s: %v\n", rp.name, live)
	if rebuilt.Sum != live.Sum {
		return &exitError{exitDiffers, fmt.Errorf("%w: %s: live %v, rebuilt %v", projector.ErrDigestMismatch, rp.name, live, rebuilt)}
	}
	fmt.Fprintf(rp.g.stdout, "ok: the rebuilt %s view equals the live view\n", rp.name)
	return nil
}

// liveDigest asks a running serve, else reads --data/views/NAME.
func (rp *replayer) liveDigest(ctx context.Context) (projector.Digest, error) {
	return viewdump.LiveDigest(ctx, rp.b.Conn, rp.name, rp.g.viewDir(rp.name))
}

// rebuild takes the replay up to seq, drawing its progress on stderr.
func (rp *replayer) rebuild(ctx context.Context, seq uint64) (projector.Digest, error) {
	bar := newReplayProgress(rp.g.stderr, rp.progress, rp.name)
	d, err := rp.rep.To(ctx, seq, bar.update)
	bar.finish()
	if err != nil {
		if ctx.Err() != nil && rp.into != "" {
			fmt.Fprintf(rp.g.stderr, "replay %s: stopped at seq %d; the same command with --into %s resumes there\n", rp.name, rp.rep.Checkpoint(), rp.into)
		}
		return projector.Digest{}, fmt.Errorf("replay: %w", err)
	}
	return d, nil
}

// parseUntil resolves --until: a stream sequence, or an RFC 3339 time
// (the last sequence stored at or before it; 0 when none).
func parseUntil(ctx context.Context, rep *projector.Replayer, s string) (uint64, error) {
	if seq, err := strconv.ParseUint(s, 10, 64); err == nil {
		return seq, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, badInput("--until %q: want a stream sequence or an RFC 3339 time", s)
	}
	return rep.SeqAtTime(ctx, t)
}

// replayProgress draws a replay's progress (projector.ReplayProgress) on
// stderr: a bar with rate and ETA on a terminal, a plain line a second
// otherwise.
type replayProgress struct {
	w     io.Writer
	mode  string // bar, lines, none
	name  string
	p     projector.ReplayProgress
	began time.Time
	last  time.Time
	bar   *progressbar.ProgressBar
}

func newReplayProgress(w io.Writer, mode, name string) *replayProgress {
	if mode == "auto" || mode == "" {
		mode = "lines"
		if isTerminal(w) {
			mode = "bar"
		}
	}
	return &replayProgress{w: w, mode: mode, name: name}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update is the replay's progress callback: its first call starts the
// display.
func (p *replayProgress) update(rp projector.ReplayProgress) {
	p.p = rp
	if p.began.IsZero() {
		p.began, p.last = time.Now(), time.Now()
		switch p.mode {
		case "bar":
			p.bar = progressbar.NewOptions64(int64(rp.Until),
				progressbar.OptionSetWriter(p.w),
				progressbar.OptionSetDescription("replay "+p.name),
				progressbar.OptionShowCount(),
				progressbar.OptionShowIts(),
				progressbar.OptionSetItsString("events"),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionClearOnFinish(),
			)
			p.bar.Set64(int64(rp.Seq))
		case "lines":
			fmt.Fprintf(p.w, "replay %s: from seq %d to %d\n", p.name, rp.From+1, rp.Until)
		}
		return
	}
	switch p.mode {
	case "bar":
		p.bar.Set64(int64(rp.Seq))
	case "lines":
		if time.Since(p.last) >= time.Second {
			p.last = time.Now()
			p.line()
		}
	}
}

func (p *replayProgress) line() {
	done := p.p.Seq - p.p.From
	rate := float64(done) / max(time.Since(p.began).Seconds(), 1e-9)
	pct := 100.0
	if p.p.Until > p.p.From {
		pct = 100 * float64(done) / float64(p.p.Until-p.p.From)
	}
	eta := "—"
	if rate > 0 && p.p.Until > p.p.Seq {
		eta = time.Duration(float64(p.p.Until-p.p.Seq) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "replay %s: seq %d/%d (%.1f%%), %.0f events/s, eta %s\n", p.name, p.p.Seq, p.p.Until, pct, rate, eta)
}

// finish ends a display that started.
func (p *replayProgress) finish() {
	if p.began.IsZero() {
		return
	}
	switch p.mode {
	case "bar":
		p.bar.Finish()
	case "lines":
		p.line()
	}
}

// dumpPageRows bounds the rows of a page of the dumps serve answers and
// of the local pages --diff reads (a variable: tests page small).
var dumpPageRows = viewdump.PageRows

// diff rebuilds the view up to the live view's checkpoint and compares the
// two key by key.
func (rp *replayer) diff(ctx context.Context, maxShown int) error {
	live0, err := rp.liveDigest(ctx)
	if err != nil {
		return err
	}
	if _, err := rp.rebuild(ctx, live0.Seq); err != nil {
		return err
	}
	// The live side: a snapshot of a running serve's view, else the view
	// directory. The rebuild catches up with the snapshot's checkpoint.
	live, err := viewdump.OpenLive(ctx, rp.b.Conn, rp.name, rp.g.viewDir(rp.name), dumpPageRows)
	if errors.Is(err, viewdump.ErrNoLiveView) {
		return fmt.Errorf("replay --diff: %w", err)
	}
	if err != nil {
		return err
	}
	defer live.Close()
	seq, source := live.Seq, live.Dir
	if source == "" {
		source = "running serve"
	}
	if seq < live0.Seq {
		return fmt.Errorf("replay --diff: the live view went back from seq %d to %d", live0.Seq, seq)
	}
	rebuilt, err := rp.rebuild(ctx, seq)
	if err != nil {
		return err
	}
	rv := rp.rep.View()
	defer rv.Close()

	w := rp.g.stdout
	fmt.Fprintf(w, "diff of %s at seq %d: live view (%s) vs a rebuild by this binary\n", rp.name, seq, source)
	fmt.Fprintf(w, "rebuilt %s: %v\n", rp.name, rebuilt)
	shown := 0
	show := func(format string, args ...any) {
		if shown < maxShown {
			fmt.Fprintf(w, format, args...)
		}
		shown++
	}
	n, err := viewdump.Diff(live.Page, viewdump.ViewPager(rv, dumpPageRows), func(c viewdump.Change) error {
		switch c.Kind {
		case viewdump.OnlyA:
			show("- %s\n", stack.FormatRow(rp.name, c.Key, c.A))
		case viewdump.OnlyB:
			show("+ %s\n", stack.FormatRow(rp.name, c.Key, c.B))
		default:
			key, lval := stack.FormatRowParts(rp.name, c.Key, c.A)
			_, rval := stack.FormatRowParts(rp.name, c.Key, c.B)
			show("~ %s\n    live:    %s\n    rebuilt: %s\n", key, lval, rval)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if shown > maxShown {
		fmt.Fprintf(w, "… and %d more differences (--diff-max)\n", shown-maxShown)
	}
	if n.Differ() == 0 {
		fmt.Fprintf(w, "ok: the rebuilt %s view equals the live view, key by key (%d keys)\n", rp.name, n.Same)
		return nil
	}
	summary := fmt.Sprintf("%d keys differ: %d only in the rebuild (+), %d only in the live view (-), %d changed (~); %d equal", n.Differ(), n.OnlyB, n.OnlyA, n.Changed, n.Same)
	fmt.Fprintln(w, summary)
	return &exitError{exitDiffers, fmt.Errorf("%w: %s: %s", projector.ErrDigestMismatch, rp.name, summary)}
}
