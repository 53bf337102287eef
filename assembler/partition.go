package assembler

import (
	"github.com/toolstream/toolstream/events"
	"strconv"

	"github.com/toolstream/toolstream/projector"
)

// PartitionName is the name of the assembler of model partition p:
// "assembler-p<p>". Its consumer is "ts-assembler-p<p>" and its view a
// directory of its own.
func PartitionName(p int) string { return Name + "-p" + strconv.Itoa(p) }

// Partition returns the assembler of one model partition: the same
// projection reading only the model subjects matching filter (the log's
// partition p, bus.PartitionFilter(p)), and every clock tick and registry
// change. All events of a response are in one partition, so the partition's
// assembler sees each of its calls whole; what it emits (and the ids it
// emits them with) is what the unpartitioned assembler would emit for those
// responses.
//
// Run exactly one active runner per partition (projector.Lease) and no
// unpartitioned assembler beside them.
func (a *Assembler) Partition(p int, filter string) projector.Projection {
	return &partition{Assembler: a, name: PartitionName(p), filter: filter}
}

type partition struct {
	*Assembler
	name, filter string
}

func (q *partition) Name() string { return q.name }

func (q *partition) Subjects() []string {
	subjects := []string{q.filter}
	for _, s := range q.Assembler.Subjects() {
		if s != events.AllModel {
			subjects = append(subjects, s)
		}
	}
	return subjects
}
