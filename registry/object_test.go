package registry_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/registry"
)

const refundTool = `
tools:
  - name: refund
    input_schema:
      type: object
      additionalProperties: false
      required: [order_id, amount]
      properties:
        order_id: {type: string}
        amount: {type: number}
    object: "order:{order_id}"
    authorize: {http: "https://auth.example/check"}
grants:
  - {tenant: acme, permissions: ["*"]}
`

func TestObjectKeyAndVersion(t *testing.T) {
	r, err := registry.Parse([]byte(refundTool))
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Lookup("refund")
	if tool.Object != "order:{order_id}" || tool.Authorize == nil || tool.Authorize.URL != "https://auth.example/check" {
		t.Fatalf("contract: object %q authorize %+v", tool.Object, tool.Authorize)
	}
	// $object_version is taken out before the strict schema sees it.
	out, _, reason, detail := r.Validate("acme", "refund", []byte(`{"order_id":"A-1","amount":5,"$object_version":3}`))
	if reason != "" || string(out) != `{"amount":5,"order_id":"A-1"}` {
		t.Fatalf("validate: %s %s %s", out, reason, detail)
	}
	if v, ok, err := registry.ObjectVersion([]byte(`{"order_id":"A-1","$object_version":3}`)); v != 3 || !ok || err != nil {
		t.Fatalf("ObjectVersion = %d %v %v", v, ok, err)
	}
	if _, reason, _ := validate(r, `{"order_id":"A-1","amount":5,"$object_version":"x"}`); reason != events.ReasonSchemaViolation {
		t.Fatalf("a version that is no number: %s", reason)
	}
	if _, reason, d := validate(r, `{"order_id":"","amount":5}`); reason != events.ReasonSchemaViolation || !strings.Contains(d, "order_id is empty") {
		t.Fatalf("empty object key: %s %s", reason, d)
	}
	key, err := tool.ObjectKey(out)
	if key != "order:A-1" || err != nil {
		t.Fatalf("ObjectKey = %q, %v", key, err)
	}
	// The spec round-trips with the new fields.
	if r2, err := registry.Parse(r.Spec()); err != nil || r2.Digest() != r.Digest() {
		t.Fatalf("spec round trip: %v", err)
	}
}

func validate(r *registry.Registry, args string) ([]byte, events.Reason, string) {
	out, _, reason, detail := r.Validate("acme", "refund", []byte(args))
	return out, reason, detail
}

func TestObjectTemplateRefused(t *testing.T) {
	for _, c := range []struct{ object, sideEffect, path, want string }{
		{`"order:{order_id"`, "reversible", "tools[0].object", "not closed"},
		{`"order:order_id}"`, "reversible", "tools[0].object", "closes nothing"},
		{`"order"`, "reversible", "tools[0].object", "names no argument"},
		{`"order:{order.id}"`, "reversible", "tools[0].object", "not a top-level argument name"},
		{`"order:{customer}"`, "reversible", "tools[0].object", "not a property of input_schema"},
		{`"order:{note}"`, "reversible", "tools[0].object", "not in input_schema's required"},
		{`"order:{order_id}"`, "none", "tools[0].object", "side_effect: none"},
		{`7`, "reversible", "tools[0].object", "want a string"},
	} {
		file := `
tools:
  - name: refund
    side_effect: ` + c.sideEffect + `
    input_schema:
      type: object
      required: [order_id]
      properties: {order_id: {type: string}, note: {type: string}}
    object: ` + c.object + "\n"
		_, err := registry.Parse([]byte(file))
		var fe *registry.FieldError
		if !errors.As(err, &fe) || fe.Path != c.path || !strings.Contains(fe.Msg, c.want) {
			t.Errorf("object %s: got %v, want %s: …%s…", c.object, err, c.path, c.want)
		}
	}
	_, err := registry.Parse([]byte("tools:\n  - name: t\n    authorize: {http: \"ftp://x\"}\n"))
	var fe *registry.FieldError
	if !errors.As(err, &fe) || fe.Path != "tools[0].authorize.http" {
		t.Errorf("authorize ftp: %v", err)
	}
}
