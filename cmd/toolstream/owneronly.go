package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ownerOnly makes dir and everything under it readable by its owner only:
// directories 0700, files 0600, whatever modes they had (a --data made
// beforehand by hand, or by a version that made its views world-readable:
// docs/security.md, "`--data` is its owner's alone"). Symbolic links are not followed (their mode means nothing).
// Together with the umask main sets (077), what Toolstream creates later
// (Pebble's and the server's files) is owner-only too.
func ownerOnly(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("--data %s: %w", dir, err)
		}
		var want fs.FileMode
		switch {
		case d.IsDir():
			want = 0o700
		case d.Type().IsRegular():
			want = 0o600
		default:
			return nil // symlinks, sockets: nothing to chmod
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("--data %s: %w", dir, err)
		}
		if info.Mode().Perm() == want {
			return nil
		}
		if err := os.Chmod(path, want); err != nil {
			return fmt.Errorf("--data %s: make owner-only: %w", dir, err)
		}
		return nil
	})
}
