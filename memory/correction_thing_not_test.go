package memory

import (
	"testing"
	"time"
)

// TestAThingsValueKeepsNotWhatItIsNot: a thing of the user's said after a
// correction's opening, with what it is not (储物柜在四楼，不是二楼), holds
// its new value alone and supersedes the old one; the value it is not is
// no part of it.
func TestAThingsValueKeepsNotWhatItIsNot(t *testing.T) {
	at := time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC)
	e, s := sayTwo(t, "我的储物柜在二楼。", "不对，我说错了，储物柜在四楼，不是二楼。", at)
	old := getRecord(t, e, s, "m1")
	if old.Status != StatusSuperseded || old.SupersededBy == "" {
		t.Fatalf("the old floor %+v, want superseded", old)
	}
	nu := getRecord(t, e, s, refID(old.SupersededBy))
	if nu.Value != "四楼" || nu.Subject != old.Subject || nu.Attribute != old.Attribute {
		t.Errorf("newer %s/%s=%q, want %s/%s=四楼 without what it is not", nu.Subject, nu.Attribute, nu.Value, old.Subject, old.Attribute)
	}
}
