package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// Every command holds credentials: the operator's material in --data/auth,
// a --creds file, the registry's signing key, and serve's executors resolve
// tools' secrets (${env:…}, ${file:…}) into their memory. A tool that runs
// as the same user (a command tool without a sandbox) could otherwise read
// them from /proc/<pid>/environ and /proc/<pid>/mem, or ptrace the
// process: Linux lets a user look into any of its own processes that are
// dumpable. So before a command runs, the process makes itself
// non-dumpable (prctl PR_SET_DUMPABLE 0): its /proc files then belong to
// root and ptrace attach is refused to anyone without CAP_SYS_PTRACE. It
// also writes no core dump. A program the process starts is dumpable again
// after its execve; that concerns the program's own memory only.
//
// Elsewhere than Linux this is a no-op.

// undumpableHook is the root command's PersistentPreRunE, so it runs for
// every command (a command that sets a PersistentPreRun of its own must
// call it too). It fails the command if the process cannot be made
// non-dumpable.
func undumpableHook(*cobra.Command, []string) error {
	if err := undumpable(); err != nil {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE, 0): %w", err)
	}
	return nil
}
