package logread_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/bus/bustest"
	"github.com/toolstream/toolstream/internal/logread"
)

// TestLast: the last message on a subject, among many on others; none on
// a subject nothing was written to.
func TestLast(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	subjects := []string{"ts.result.acme.a", "ts.result.acme.b", "ts.result.globex.a"}
	publish(t, b, 300, func(i int) string { return subjects[i%3] })
	for _, tc := range []struct {
		subject string
		seq     uint64
		err     error
	}{
		{"ts.result.acme.a", 298, nil},
		{"ts.result.acme.b", 299, nil},
		{"ts.result.globex.a", 300, nil},
		{"ts.result.acme.c", 0, logread.ErrNoMessage},
	} {
		m, err := logread.Last(ctx, b.Conn, events.StreamOut, tc.subject)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: %v, want %v", tc.subject, err, tc.err)
			}
			continue
		}
		if err != nil || m.Seq != tc.seq || m.Subject != tc.subject {
			t.Errorf("%s: %+v %v, want seq %d", tc.subject, m, err, tc.seq)
		}
	}
}

// TestLastSeq: the last message on any of the subjects, wildcards
// included; 0 when none of them holds one.
func TestLastSeq(t *testing.T) {
	b := bustest.Start(t)
	ctx := context.Background()
	subjects := []string{"ts.result.acme.a", "ts.result.acme.b", "ts.result.globex.a"}
	publish(t, b, 300, func(i int) string { return subjects[i%3] })
	for _, tc := range []struct {
		subjects []string
		seq      uint64
	}{
		{[]string{"ts.result.acme.*"}, 299},
		{[]string{"ts.result.acme.a", "ts.result.globex.>"}, 300},
		{[]string{"ts.result.acme.a"}, 298},
		{[]string{"ts.result.initech.>", "ts.run.>"}, 0},
		{nil, 0},
	} {
		seq, err := logread.LastSeq(ctx, b.Conn, events.StreamOut, tc.subjects)
		if err != nil || seq != tc.seq {
			t.Errorf("%v: %d %v, want %d", tc.subjects, seq, err, tc.seq)
		}
	}
}
