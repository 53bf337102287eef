package demo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/executor"
)

// The demo's tools are Go functions registered through executor.Tool.

type toolFunc func(ctx context.Context, call executor.Call) (json.RawMessage, error)

func (f toolFunc) Invoke(ctx context.Context, call executor.Call) (json.RawMessage, error) {
	return f(ctx, call)
}

func tools() map[string]executor.Tool {
	return map[string]executor.Tool{
		"inventory.get": toolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			var a struct{ SKU string }
			json.Unmarshal(c.Args, &a)
			if a.SKU != "A1" {
				return nil, &executor.ToolError{Type: events.ErrBusinessRejected, Message: "unknown sku " + a.SKU + ": ask the customer for the product code"}
			}
			return json.RawMessage(`{"sku":"A1","name":"商品 A","available":12,"warehouse":"Shanghai"}`), nil
		}),
		"shipping.quote": toolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			var a struct{ Carrier string }
			json.Unmarshal(c.Args, &a)
			days, price := 4, 8
			if a.Carrier == "sf" {
				days, price = 2, 12
			}
			return json.RawMessage(fmt.Sprintf(`{"carrier":%q,"days":%d,"price_cny":%d}`, a.Carrier, days, price)), nil
		}),
		"orders.refund": toolFunc(func(_ context.Context, c executor.Call) (json.RawMessage, error) {
			var a struct {
				OrderID string `json:"order_id"`
				Amount  float64
			}
			json.Unmarshal(c.Args, &a)
			return json.RawMessage(fmt.Sprintf(`{"order_id":%q,"refunded":%v,"status":"refunded"}`, a.OrderID, a.Amount)), nil
		}),
	}
}
