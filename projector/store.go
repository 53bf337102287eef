package projector

// Reader reads a projection's state. Keys are ordered bytewise.
//
// Get returns a copy of the value, safe to keep. Scan calls fn for every key
// with the prefix in ascending order; key and value are valid only during
// the call. An error from fn stops the scan and is returned.
type Reader interface {
	Get(key []byte) (value []byte, ok bool, err error)
	Scan(prefix []byte, fn func(key, value []byte) error) error
}

// Writer reads and writes a projection's state. Inside Apply, writes are
// visible to later reads of the same Tx and are committed atomically with the
// checkpoint and the outbox, or not at all.
type Writer interface {
	Reader
	Set(key, value []byte) error
	Delete(key []byte) error
}
