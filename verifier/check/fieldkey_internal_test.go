package check

import (
	"slices"
	"testing"
	"time"

	"github.com/toolstream/toolstream/verifier/evidence"
)

// fieldKeyOf says of every field what its own key says, and works it out
// once per key and answer: the rows of a list share their keys, and
// splitting each row's key again cost a tenth of the check.
func TestFieldKeyOfIsReadOncePerKey(t *testing.T) {
	now := time.Date(2024, 5, 3, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		result string
		keys   int // distinct keys (a boolean and a string under one key are two)
	}{
		{"en-rows", `{"items": [{"sku": "A-1", "in_stock": true, "order_status": "shipped", "paid": false},
			{"sku": "A-2", "in_stock": false, "order_status": "pending", "paid": true},
			{"sku": "A-3", "in_stock": true, "order_status": "delivered", "paid": "partly"}]}`, 5},
		{"zh-rows", `{"订单": [{"编号": "D-1", "发货状态": "已发货", "已支付": true},
			{"编号": "D-2", "发货状态": "未发货", "已支付": false}]}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := evidence.BuildIndex([]evidence.Evidence{{CallID: "a", Name: "rows", Result: []byte(tc.result)}}, now)
			cx := &claim{ix: ix, fieldKeys: map[fieldKeyID]fieldKey{}}
			for l := range int32(len(ix.Leaves)) {
				got, want := cx.fieldKeyOf(l), fieldKey{ix.KeyAttrs(l), ix.StateField(l)}
				if !slices.Equal(got.attrs, want.attrs) || got.state != want.state {
					t.Errorf("%s: %+v, want %+v", ix.Leaves[l].Ptr(), got, want)
				}
			}
			if len(cx.fieldKeys) != tc.keys {
				t.Errorf("%d keys read for %d leaves, want one a key: %d", len(cx.fieldKeys), len(ix.Leaves), tc.keys)
			}
		})
	}
}
