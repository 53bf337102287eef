package auth_test

import (
	"testing"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/internal/auth"
	"github.com/toolstream/toolstream/internal/keys"
	"github.com/toolstream/toolstream/memory"
)

// TestMayPublishIsTheRolesPermissions: what MayPublish says of a role is
// what its NATS user may publish — operators decide approvals and ask the
// memory service, readers write nothing, a producer reaches its own
// tenant's raw subjects only; only the verifier writes answers (judge
// verdicts among them), only the driver constraint checks, and only the
// executor results (excerpts among them), the driver the built-in tools'
// outcomes on their own subjects and no executor's;
// only the keys role (and the admin) reaches the key bucket, and every
// other role asks the keys service on the subjects its role may.
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
	// A constraint check has a subject of its own, the driver's: the
	// driver records checks and publishes no verdict.
	check, _ := events.ConstraintCheckSubject("acme", "r1")
	checkOther, _ := events.ConstraintCheckSubject("globex", "r1")
	driver := auth.Identity{Role: auth.RoleDriver}
	result, _ := events.ResultSubject("acme", events.IdempotencyKey("acme", "", "r1", "c1"))
	// A built-in tool's outcome has a subject of its own, the driver's: the
	// driver publishes no executor's outcome (sec13).
	builtin, _ := events.BuiltinResultSubject("acme", events.IdempotencyKey("acme", "", "r1", "c1"))
	keyring := auth.Identity{Role: auth.RoleKeyring}
	acmeProd := auth.Identity{Role: auth.RoleProducer, Tenant: "acme"}
	annKey := "$KV." + keys.Bucket + ".k._YWNtZQ.u._YW5u"                            // acme's user ann
	eraseKey := "$JS.API.STREAM.MSG.DELETE.KV_" + keys.Bucket                        // an erasing delete
	wildGet := "$JS.API.DIRECT.GET.KV_" + keys.Bucket + ".$KV." + keys.Bucket + ".>" // every key
	var cases = []struct {
		id      auth.Identity
		subject string
		want    bool
	}{}
	for _, r := range auth.Roles {
		if r == auth.RoleAdmin || r == auth.RoleKeyring {
			continue
		}
		id := auth.Identity{Role: r}
		if r == auth.RoleProducer {
			id.Tenant = "acme"
		}
		for _, s := range []string{annKey, annKey + ".r._cjE", "$KV." + keys.Bucket + ".>", eraseKey, wildGet,
			"$JS.API.DIRECT.GET.KV_" + keys.Bucket, "$JS.API.STREAM.INFO.KV_" + keys.Bucket, "$JS.API.STREAM.MSG.GET.KV_" + keys.Bucket,
			"$JS.API.STREAM.PURGE.KV_" + keys.Bucket, "$JS.API.CONSUMER.CREATE.KV_" + keys.Bucket} {
			cases = append(cases, struct {
				id      auth.Identity
				subject string
				want    bool
			}{id, s, false})
		}
	}
	for _, tc := range append(cases, []struct {
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
		{driver, answer, false},
		{driver, check, true},
		{driver, result, false},
		{driver, builtin, true},
		{auth.Identity{Role: auth.RoleExecutor}, builtin, true},
		{auth.Identity{Role: auth.RoleVerifier}, builtin, false},
		{acmeProd, builtin, false},
		{driver, checkOther, true},
		{acmeProd, check, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}, check, false},
		{auth.Identity{Role: auth.RoleProducer, Tenant: "globex"}, checkOther, false},
		{auth.Identity{Role: auth.RoleVerifier}, check, false},
		{auth.Identity{Role: auth.RoleReader}, check, false},
		{auth.Identity{Role: auth.RoleOperator}, check, false},
		{auth.Identity{Role: auth.RoleVerifier}, result, false},
		{auth.Identity{Role: auth.RoleExecutor}, result, true},
		{auth.Identity{Role: auth.RoleAdmin}, approval, true},
		{auth.Identity{Role: auth.RoleSys}, approval, false},
		// The key bucket is the keys role's: no other role writes a key
		// (a Nats-Rollup there would purge every tenant's), deletes one or
		// reads one, by subject or by a wildcard direct get.
		{keyring, annKey, true},
		{keyring, eraseKey, true},
		{keyring, wildGet, true},
		{keyring, keys.ServiceSubject(keys.VerbUser, "acme"), false},
		{auth.Identity{Role: auth.RoleAdmin}, annKey, true},
		{auth.Identity{Role: auth.RoleSys}, keys.ServiceSubject(keys.VerbUser, "acme"), false},
		// Keys are asked of the keys service, by subject: a producer its
		// own tenant's users' only, processors any tenant's seal and open,
		// readers open, the operator erase.
		{acmeProd, keys.ServiceSubject(keys.VerbUser, "acme"), true},
		{acmeProd, keys.ServiceSubject(keys.VerbUser, "globex"), false},
		{acmeProd, keys.ServiceSubject(keys.VerbOpen, "acme"), false},
		{acmeProd, keys.ServiceSubject(keys.VerbSeal, "acme"), false},
		{acmeProd, keys.ServiceSubject(keys.VerbErase, "acme"), false},
		{auth.Identity{Role: auth.RoleReader}, keys.ServiceSubject(keys.VerbOpen, "globex"), true},
		{auth.Identity{Role: auth.RoleReader}, keys.ServiceSubject(keys.VerbSeal, "globex"), false},
		{auth.Identity{Role: auth.RoleOperator}, keys.ServiceSubject(keys.VerbErase, "globex"), true},
	}...) {
		if got := tc.id.MayPublish(tc.subject); got != tc.want {
			t.Errorf("%v may publish %s: %v, want %v", tc.id, tc.subject, got, tc.want)
		}
	}
}
