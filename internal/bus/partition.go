package bus

import (
	"github.com/nats-io/nats.go/jetstream"
	"github.com/toolstream/toolstream/events"
)

// Partitions of the model subjects.
//
// With Config.Partitions = N the log's stream carries a subject transform
// (nats-server applies it to every message the stream stores):
//
//	ts.model.<tenant>.<response>.<item>  →  ts.model.<tenant>.<response>.<item>.<p>
//
// where p = partition(N, response) is nats-server's deterministic hash of
// the response token, 0 ≤ p < N. Every event of one response lands in one
// partition, so one assembler sees a whole response (the completion rules
// need the response's own end, invariant 1) and the tenant stays the third
// token (invariant 7). Subjects that already have the partition token, and
// every other kind of subject, are stored as they are.
//
// The mapping lives in the stream, not in each server's configuration: one
// place to change N, the same on an embedded server and on a cluster, and
// visible in the stream's info (Bus.Partitions).

// PartitionsMax bounds Config.Partitions.
const PartitionsMax = 1024

// partitionSource is the model subject before partitioning.
const partitionSource = events.ModelUnpartitioned

func partitionTransform(n int) *jetstream.SubjectTransformConfig {
	return &jetstream.SubjectTransformConfig{
		Source:      partitionSource,
		Destination: events.ModelPartitionMapping(n),
	}
}

// partitionsOf returns N of a partition transform, 0 for none.
func partitionsOf(t *jetstream.SubjectTransformConfig) int {
	if t == nil || t.Source != partitionSource {
		return 0
	}
	for n := 1; n <= PartitionsMax; n++ {
		if t.Destination == partitionTransform(n).Destination {
			return n
		}
	}
	return 0
}

func sameTransform(a, b *jetstream.SubjectTransformConfig) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Source == b.Source && a.Destination == b.Destination
}

// Partitions is the number of model partitions of the log's stream as it
// was read or written by Open; 0 when model subjects are not partitioned.
func (b *Bus) Partitions() int {
	s, ok := b.streams[events.StreamModel]
	if !ok {
		return 0
	}
	return partitionsOf(s.CachedInfo().Config.SubjectTransform)
}

// PartitionFilter is the subject filter of model partition p:
// ts.model.*.*.*.<p>.
func PartitionFilter(p int) string { return events.ModelPartitionFilter(p) }
