package auth_test

import (
	"testing"

	"github.com/toolstream/toolstream/auth"
	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/memory"
)

// TestMayPublishIsTheRolesPermissions: what MayPublish says of a role is
// what its NATS user may publish — operators decide approvals and ask the
// memory service, readers write nothing, a producer reaches its own
// tenant's raw subjects only; only the verifier writes answers (judge
// verdicts among them) and only the executor results (excerpts among them).
func TestMayPublishIsTheRolesPermissions(t *testing.T) {
	approval, err := events.ApprovalSubject("acme", events.IdempotencyKey("acme", "", "r1", "c1"))
	if err != nil {
		t.Fatal(err)
	}
	rawAcme, _ := events.IngestSubject("acme", "openai", "r1")
	rawOther, _ := events.IngestSubject("other", "openai", "r1")
	forget := memory.ServicePrefix + ".forget"
	// An answer's subject carries the judge's verdicts (JudgeVerdict), a
	// result's the excerpt of a result kept in the object store: whoever
	// may publish there decides claims.
	answer, _ := events.AnswerSubject("acme", "r1")
	result, _ := events.ResultSubject("acme", events.IdempotencyKey("acme", "", "r1", "c1"))
	for _, tc := range []struct {
		id      auth.Identity
		subject string
		want    bool
	}{
		{auth.Identity{Role: auth.RoleOperator}, approval, true},
		{auth.Identity{Role: auth.RoleOperator}, forget, true},
		{auth.Identity{Role: auth.RoleOperator}, rawAcme, false},
		{auth.Identity{Role: auth.RoleReader}, approval, false},
		{auth.Identity{Role: auth.RoleReader}, forget, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, rawAcme, true},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, rawOther, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, approval, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, answer, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}, result, false},
		{auth.Identity{Role: auth.RoleReader}, answer, false},
		{auth.Identity{Role: auth.RoleOperator}, answer, false},
		{auth.Identity{Role: auth.RoleExecutor}, answer, false},
		{auth.Identity{Role: auth.RoleVerifier}, answer, true},
		{auth.Identity{Role: auth.RoleVerifier}, result, false},
		{auth.Identity{Role: auth.RoleExecutor}, result, true},
		{auth.Identity{Role: auth.RoleAdmin}, approval, true},
		{auth.Identity{Role: auth.RoleSys}, approval, false},
	} {
		if got := tc.id.MayPublish(tc.subject); got != tc.want {
			t.Errorf("%v may publish %s: %v, want %v", tc.id, tc.subject, got, tc.want)
		}
	}
}
