package agent

import "errors"

var (
	// ErrInvalidConfig: a configuration that cannot work.
	ErrInvalidConfig = errors.New("agent: invalid config")
	// ErrBadRequest: a client's request run mode cannot drive (not a JSON
	// object, no messages or input, an unknown format).
	ErrBadRequest = errors.New("agent: bad request")
	// ErrCancelled: the run was cancelled (its client went away and asked
	// for Toolstream-On-Disconnect: cancel); no further round starts.
	ErrCancelled = errors.New("agent: run cancelled")
	// ErrNotFound: the run is not the requesting user's (a run belongs to
	// the user whose request created it; another user is told no such run
	// exists, and the model is not asked).
	ErrNotFound = errors.New("agent: no such run")
	// ErrRunTaken: a sub-agent's run id (events.ChildRunID) is already a
	// run that is not that parent's child; the delegate call fails and no
	// sub-agent starts.
	ErrRunTaken = errors.New("agent: run id taken")
	// ErrRunsService: the runs service did not answer, or answered with an
	// error.
	ErrRunsService = errors.New("agent: runs service")
	// ErrMemory: the memory service failed a write of the user's message
	// or a recall (a server that serves none is a run without memory).
	ErrMemory = errors.New("agent: memory service")
)
