package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/bus"
	"github.com/toolstream/toolstream/projector"
)

func replayCmd(g *globals) *cobra.Command {
	var name, into string
	d := &deps{g: g}
	var verify bool
	var until uint64
	cmd := &cobra.Command{
		Use:   "replay --projection NAME [--verify]",
		Short: "Rebuild a projection from sequence 1 into a scratch view; --verify compares it with the live view",
		Long: `replay rebuilds a projection from the log, from sequence 1, into a scratch directory (--into, or a
temporary one), and prints the rebuilt view's digest. With --verify it first takes the live view's
digest (from a running serve, or from --data/views/NAME when none runs), rebuilds up to the same
sequence and compares: a difference exits with status 2 and says so.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := g.connect(ctx, log)
			if err != nil {
				return err
			}
			defer b.Close()
			d.log = log
			p, err := newProjection(name, d)
			if err != nil {
				return err
			}
			var live projector.Digest
			haveLive := false
			if verify || until == 0 {
				live, err = liveDigest(ctx, b, name)
				switch {
				case err == nil:
					haveLive = true
				case errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded):
					live, err = offlineDigest(g.viewDir(name))
					if err != nil && verify {
						return err
					}
					haveLive = err == nil
				default:
					return err
				}
			}
			target := until
			if target == 0 {
				if haveLive {
					target = live.Seq
				} else if target, err = b.LastSeq(ctx); err != nil {
					return err
				}
			}
			if into == "" {
				tmp, err := os.MkdirTemp("", "toolstream-replay-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				into = filepath.Join(tmp, name)
			}
			rebuilt, err := projector.Replay(ctx, projector.Config{JS: b.JS, Stream: bus.StreamName, Dir: into, Logger: log}, p, target)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "replayed %s: %v\n", name, rebuilt)
			if !verify {
				return nil
			}
			fmt.Fprintf(g.stdout, "live     %s: %v\n", name, live)
			if rebuilt.Sum != live.Sum {
				return &exitError{2, fmt.Errorf("%w: %s: live %v, rebuilt %v", projector.ErrDigestMismatch, name, live, rebuilt)}
			}
			fmt.Fprintf(g.stdout, "ok: the rebuilt %s view equals the live view\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "projection", "", "projection to rebuild: "+fmt.Sprint(projectionNames()))
	cmd.Flags().BoolVar(&verify, "verify", false, "compare the rebuilt view's digest with the live view's; exit 2 on a difference")
	cmd.Flags().Uint64Var(&until, "until", 0, "rebuild up to this stream sequence (default: the live view's checkpoint)")
	cmd.Flags().StringVar(&into, "into", "", "scratch directory for the rebuilt view (default: a temporary one, removed after)")
	cmd.Flags().DurationVar(&d.idleTimeout, "idle-timeout", 2*time.Minute, "the assembler's idle deadline: must be serve's")
	cmd.Flags().IntVar(&d.argsMax, "args-max", 1<<20, "the assembler's argument limit: must be serve's")
	cmd.MarkFlagRequired("projection")
	return cmd
}

// offlineDigest reads the digest of a view no process is serving.
func offlineDigest(dir string) (projector.Digest, error) {
	if _, err := os.Stat(dir); err != nil {
		return projector.Digest{}, fmt.Errorf("no live view at %s and no running serve answered: %w", dir, err)
	}
	db, err := projector.OpenPebble(dir, nil)
	if err != nil {
		return projector.Digest{}, err
	}
	defer db.Close()
	v := projector.SnapshotView(db)
	defer v.Close()
	return v.Digest()
}
