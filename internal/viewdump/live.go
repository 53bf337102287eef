package viewdump

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/internal/viewapi"
	"github.com/toolstream/toolstream/projector"
)

// ErrNoLiveView is a live view that neither a running serve nor its
// directory offers.
var ErrNoLiveView = errors.New("no running serve offers the live view (" + viewapi.DumpPrefix + ".<projection>) and the view directory cannot be opened")

// NotServed reports whether err, from Digest or Open, means that no
// running serve answered: none runs, or none runs the projection and the
// request timed out. The live view is then its directory's.
func NotServed(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)
}

// LiveDigest is the digest of a projection's live view: a running serve's
// (Digest), else, when none answers, that of dir, the view's directory
// (DirDigest).
func LiveDigest(ctx context.Context, nc *nats.Conn, name, dir string) (projector.Digest, error) {
	d, err := Digest(ctx, nc, name)
	if NotServed(err) {
		return DirDigest(dir)
	}
	return d, err
}

// DirDigest reads the digest of a view directory no process is serving.
func DirDigest(dir string) (projector.Digest, error) {
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

// Live is a snapshot of a projection's live view to page through. Close
// it after use.
type Live struct {
	// Seq is the snapshot's checkpoint.
	Seq uint64
	// Page pages through its rows.
	Page Pager
	// Dir is the view directory it was read from; "" when a running serve
	// answered.
	Dir   string
	close func()
}

// Close releases the snapshot.
func (l *Live) Close() {
	if l.close != nil {
		l.close()
	}
}

// OpenLive opens a snapshot of a projection's live view: a running serve's
// dump (Open), else, when none answers, dir, the view's directory, paged
// by pageRows rows (ViewPager). It returns ErrNoLiveView when neither
// opens.
func OpenLive(ctx context.Context, nc *nats.Conn, name, dir string, pageRows int) (*Live, error) {
	seq, page, err := Open(ctx, nc, name)
	if err == nil {
		return &Live{Seq: seq, Page: page}, nil
	}
	if !NotServed(err) {
		return nil, err
	}
	db, err := projector.OpenPebble(dir, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLiveView, err)
	}
	v := projector.SnapshotView(db)
	return &Live{Seq: v.Seq(), Page: ViewPager(v, pageRows), Dir: dir, close: func() { v.Close(); db.Close() }}, nil
}
