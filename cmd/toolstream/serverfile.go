package main

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/toolstream/toolstream/internal/auth"
)

// serverFile is the file in --data where serve records the client URL of
// its embedded server, so that a command given only --data finds it (its
// --listen may have been a free port, 127.0.0.1:-1).
const serverFile = "serve.json"

// serverRecord is what serverFile holds.
type serverRecord struct {
	URL string `json:"url"`
	PID int    `json:"pid"`
}

// writeServerRecord records url in dir; the returned func removes the
// record when serve stops.
func writeServerRecord(dir, url string) (remove func(), err error) {
	data, err := json.Marshal(serverRecord{URL: url, PID: os.Getpid()})
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, serverFile)
	if err := auth.WritePrivate(path, append(data, '\n')); err != nil {
		return nil, err
	}
	return func() { os.Remove(path) }, nil
}

// readServerRecord is dir's record of a running serve, if there is one.
func readServerRecord(dir string) (serverRecord, bool) {
	var r serverRecord
	data, err := os.ReadFile(filepath.Join(dir, serverFile))
	if err != nil || json.Unmarshal(data, &r) != nil || r.URL == "" {
		return serverRecord{}, false
	}
	return r, true
}
