package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/erasure"
	"github.com/toolstream/toolstream/internal/keys"
)

func keysCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Back up and restore the data keys (losing them makes all sealed history unreadable)",
		Long: `The data keys (bucket ts_keys) seal the personal data in the log; erasing a user destroys
theirs. Losing the bucket makes every sealed event of the log unreadable for good, so back it
up: backup writes every key in the clear — keep the file as safe as the keys themselves. A
restore puts back the keys the store lacks, except those of every erasure the log records
(its tombstones), so an erasure made after the backup is not undone.`,
	}
	var out string
	backup := &cobra.Command{
		Use:   "backup --out FILE",
		Short: "Write every data key to FILE (mode 0600)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return badInput("--out: give the file to write")
			}
			log, err := g.logger()
			if err != nil {
				return err
			}
			b, err := g.connect(cmd.Context(), log, asAdmin)
			if err != nil {
				return err
			}
			defer b.Close()
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return err
			}
			n, err := b.Keys.(*keys.Store).Backup(cmd.Context(), f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				os.Remove(out)
				return err
			}
			fmt.Fprintf(g.stdout, "backed up %d keys to %s\n", n, out)
			return nil
		},
	}
	backup.Flags().StringVar(&out, "out", "", "file to write; it must not exist")
	restore := &cobra.Command{
		Use:   "restore FILE",
		Short: "Put back the keys of a backup the store lacks (never those of a later erasure)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := g.logger()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			b, err := g.connect(ctx, log, asAdmin)
			if err != nil {
				return err
			}
			defer b.Close()
			tombs, err := b.ReadEvents(ctx, []string{events.EraseSubjects[events.StreamMemory]})
			if err != nil {
				return err
			}
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			restored, skipped, err := b.Keys.(*keys.Store).Restore(ctx, f, erasure.Erased(tombs))
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "restored %d keys; %d were in the store already or erased since\n", restored, skipped)
			return nil
		},
	}
	cmd.AddCommand(backup, restore)
	return cmd
}
