package events

import "strconv"

// Erasure tombstones. Erasing a user or a memory record destroys the data
// keys that sealed its events (seal.go), then writes an Erased event into
// every stream of the log, on the system tenant's erase subject of that
// stream. A projection that reads it rebuilds its view from the log without
// what the destroyed keys sealed (package projector), so no file of the
// view holds the erased text any more, and the view equals its replay.

// KindErased is an erasure tombstone.
const KindErased Kind = "ctl.erased"

// Erased says the data of a user (Record "") or of one memory record of
// the user was erased: its keys are destroyed.
type Erased struct {
	Tenant string `msgpack:"t"`
	User   string `msgpack:"u"`
	Record string `msgpack:"rec,omitempty"`
}

func (*Erased) Kind() Kind { return KindErased }

// EraseSubjects are the tombstones' subjects, one in each stream of the
// log, by stream. Only the system tenant writes them.
var EraseSubjects = map[string]string{
	StreamIn:      SubjectPrefix + ".in." + SystemTenant + ".erase",
	StreamModel:   SubjectPrefix + ".ctl." + SystemTenant + ".erase",
	StreamCalls:   SubjectPrefix + ".exec." + SystemTenant + ".erase",
	StreamOut:     SubjectPrefix + ".resp." + SystemTenant + ".erase",
	StreamMemory:  SubjectPrefix + ".mem." + SystemTenant + ".erase",
	StreamGateway: SubjectPrefix + ".gw." + SystemTenant + ".erase",
}

// ErasedID is the id of the tombstone of an erasure made at (Unix ns):
// the same in every stream (each has its own duplicate window), another
// for the next erasure of the same user.
func ErasedID(tenant, user, record string, at int64) string {
	return id("erased", tenant, user, record, strconv.FormatInt(at, 10))
}
