package memory

// A recall's K counts the messages its records come from, not the
// records: the writer splits one message into statements (MessageEvents),
// and a caller asking for 10 memories wants what 10 things said hold, not
// four statements of one long turn and six of others. A record of a
// message already taken comes beside it and does not count; a record
// with no message (an observation or episode written as itself) is its
// own source. At most KMax records are returned in all, and the budget
// (Config.RecallBudgetBytes, Query.BudgetTokens) bounds them after.

// source is what record r was said in: its message, or r itself.
func source(r *Record) string {
	if r.Message != "" {
		return r.Message
	}
	return r.ID
}

// picker takes ranked records until a record of a source not yet taken
// comes when limit sources are: the records returned are those ranked
// before the first record of the (limit+1)th source.
type picker struct {
	limit   int
	n       int             // records taken
	sources map[string]bool // sources taken
	done    bool            // a record of one source too many came
}

func newPicker(limit int) *picker {
	return &picker{limit: limit, sources: map[string]bool{}}
}

// take reports whether r, the next record in rank order, is taken, and
// counts it if so. Once it refuses one, it refuses all (done).
func (p *picker) take(r *Record) bool {
	if p.done || p.n >= KMax {
		p.done = true
		return false
	}
	s := source(r)
	if !p.sources[s] {
		if len(p.sources) >= p.limit {
			p.done = true
			return false
		}
		p.sources[s] = true
	}
	p.n++
	return true
}
