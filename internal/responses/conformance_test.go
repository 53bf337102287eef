package responses_test

import (
	"fmt"
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/responses"
	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/projector/projectortest"
)

// TestConformance runs the projection contract's suite on a recorded
// history: responses of three tenants opening, calling, completing, cut
// short and failing, and a message that is not an event.
func TestConformance(t *testing.T) {
	projectortest.Run(t, projectortest.Subject{
		New:    func() projector.Projection { return responses.Projection{} },
		Record: recordHistory,
	})
}

func recordHistory(t testing.TB) []projectortest.Message {
	bodies := []events.Body{&events.ResponseStarted{Provider: "anthropic"}, &events.OutputItemAdded{Type: events.ItemFunctionCall}, &events.ArgumentsDelta{Delta: "{"},
		&events.ResponseCompleted{}, &events.ResponseIncomplete{Reason: events.ReasonTruncated}, &events.ResponseFailed{Code: "overloaded", Message: "try later"}}
	var out []projectortest.Message
	for i := range 120 {
		tenant := []string{"acme", "globex", "initech"}[i%3]
		resp := fmt.Sprint("r", i%17)
		subj, err := events.ModelSubject(tenant, resp, "")
		if err != nil {
			t.Fatal(err)
		}
		m, err := projectortest.Event(subj, &events.Event{ID: fmt.Sprintf("%s/%s/%d", tenant, resp, i), Tenant: tenant, Response: resp,
			At: int64(i) * 1e6, Body: bodies[i%len(bodies)]})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		if i == 60 {
			out = append(out, projectortest.Message{Subject: "ts.model.acme.r1", Data: []byte("\x00not an event")})
		}
	}
	return out
}
