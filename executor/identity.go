package executor

import (
	"net/http"
	"strconv"
)

// identity is who and what a call is for, as every http, mcp and command
// tool is told it, so a tool can decide per end user, not only per tenant:
// name (USER, RUN, STEP, SESSION, CALL_ID, OBJECT, OBJECT_VERSION) → value,
// only those the call has. An http or mcp tool gets each as a header
// Toolstream-<Name> (Toolstream-User, Toolstream-Run, Toolstream-Step,
// Toolstream-Session, Toolstream-Call-Id, Toolstream-Object,
// Toolstream-Object-Version), a command tool as TOOLSTREAM_<NAME>
// (TOOLSTREAM_USER, …), beside the tenant, tool, attempt and idempotency
// key it already gets. A tool that trusts them trusts the producer that
// wrote the call's envelope (its NATS identity publishes only its tenant);
// the executor passes them as the log has them.
func identity(call Call) map[string]string {
	m := map[string]string{}
	for _, kv := range [][2]string{
		{"USER", call.User}, {"RUN", call.Run}, {"STEP", call.Step}, {"SESSION", call.Session},
		{"CALL_ID", call.CallID}, {"OBJECT", call.Object},
	} {
		if kv[1] != "" {
			m[kv[0]] = kv[1]
		}
	}
	if call.Object != "" {
		m["OBJECT_VERSION"] = strconv.FormatUint(call.ObjectVersion, 10)
	}
	return m
}

// identityHeaders sets identity's headers on h.
func identityHeaders(h http.Header, call Call) {
	for k, v := range identity(call) {
		h.Set(headerName(k), v)
	}
}

// headerName turns USER into Toolstream-User, OBJECT_VERSION into
// Toolstream-Object-Version.
func headerName(k string) string {
	b := []byte("Toolstream-")
	upper := true
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			b = append(b, '-')
			upper = true
			continue
		case !upper && c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
		upper = false
	}
	return string(b)
}
