package client_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/toolstream/toolstream/client"
)

// TestEveryMethodHasOneRole: each exported method of *Client belongs to
// exactly one role interface (Conn and Close to Toolstream itself), so a
// method added to the Client is given a role, and no role names a method
// twice.
func TestEveryMethodHasOneRole(t *testing.T) {
	roles := map[string]reflect.Type{
		"Producer":  reflect.TypeFor[client.Producer](),
		"Consumer":  reflect.TypeFor[client.Consumer](),
		"Latest":    reflect.TypeFor[client.Latest](),
		"Decider":   reflect.TypeFor[client.Decider](),
		"RunReader": reflect.TypeFor[client.RunReader](),
		"RunDriver": reflect.TypeFor[client.RunDriver](),
		"Memory":    reflect.TypeFor[client.Memory](),
		"Eraser":    reflect.TypeFor[client.Eraser](),
	}
	of := map[string][]string{"Conn": {"Toolstream"}, "Close": {"Toolstream"}}
	for name, r := range roles {
		for i := range r.NumMethod() {
			m := r.Method(i).Name
			of[m] = append(of[m], name)
		}
	}
	ct := reflect.TypeFor[*client.Client]()
	var methods []string
	for i := range ct.NumMethod() {
		m := ct.Method(i).Name
		methods = append(methods, m)
		switch rs := of[m]; len(rs) {
		case 0:
			t.Errorf("(*Client).%s is in no role interface (roles.go)", m)
		case 1:
		default:
			slices.Sort(rs)
			t.Errorf("(*Client).%s is in several roles: %v", m, rs)
		}
	}
	for m := range of {
		if !slices.Contains(methods, m) {
			t.Errorf("a role names %s, which *Client does not have", m)
		}
	}
	t.Logf("%d methods in %d roles", len(methods), len(roles))
}
