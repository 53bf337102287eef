package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockFile is the file in --data whose lock says which process owns the
// directory: serve, setup or replay --offline, each of which opens the
// JetStream files and the Pebble views in it. Its content names the holder
// for the message a second owner gets.
const lockFile = "lock"

// holder is who holds --data: what the lock file says.
type holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h holder) String() string {
	if h.PID == 0 {
		return "another process"
	}
	return fmt.Sprintf("%s (pid %d) since %s", h.Command, h.PID, h.Since.Local().Format(time.DateTime))
}

// errDataInUse is what taking a held --data returns.
var errDataInUse = errors.New("in use")

// dataInUseError names the directory and its holder.
type dataInUseError struct {
	dir    string
	holder holder
}

func (e *dataInUseError) Error() string {
	return fmt.Sprintf("--data %s is in use by %s; stop it first, or give another --data", e.dir, e.holder)
}

func (e *dataInUseError) Unwrap() error { return errDataInUse }

// lockData makes dir (if missing), takes its lock for command and makes
// dir and everything in it owner-only (ownerOnly), or
// returns a *dataInUseError naming the process that holds it. The lock is
// an flock: it goes with the process, so a crash leaves no stale lock, and
// release (or the end of the process) gives it back.
func lockData(dir, command string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--data %s: %w", dir, err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--data %s: %w", dir, err)
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, errDataInUse) {
			return nil, &dataInUseError{dir: dir, holder: readHolder(dir)}
		}
		return nil, fmt.Errorf("--data %s: lock: %w", dir, err)
	}
	// The owner makes the directory owner-only, whatever it was made with.
	if err := ownerOnly(dir); err != nil {
		funlock(f)
		f.Close()
		return nil, err
	}
	data, _ := json.Marshal(holder{PID: os.Getpid(), Command: command, Since: time.Now().UTC().Truncate(time.Second)})
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(data, '\n'), 0)
	}
	return func() {
		f.Truncate(0) // the file stays (removing it would race a new owner's open); its holder goes
		funlock(f)
		f.Close()
	}, nil
}

// dataHeld reports who holds dir's lock, if anyone: probing takes the lock
// for an instant when it is free.
func dataHeld(dir string) (holder, bool) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR, 0)
	if err != nil {
		return holder{}, false // never locked
	}
	defer f.Close()
	if err := flock(f); err != nil {
		return readHolder(dir), errors.Is(err, errDataInUse)
	}
	funlock(f)
	return holder{}, false
}

func readHolder(dir string) holder {
	var h holder
	data, _ := os.ReadFile(filepath.Join(dir, lockFile))
	json.Unmarshal([]byte(strings.TrimSpace(string(data))), &h)
	return h
}
