package auth

import (
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// TestSubjectsCollideAsTheServer: subjectsCollide answers as nats-server's
// SubjectsCollide for every pair of subjects of up to four tokens drawn
// from literals, wildcards, a token that starts with a wildcard and an
// empty token, and for every subject a role is issued against subjects of
// the log and the services.
func TestSubjectsCollideAsTheServer(t *testing.T) {
	alphabet := []string{"a", "b", "*", ">", "", "*x"}
	var subjects []string
	var grow func(prefix []string)
	grow = func(prefix []string) {
		if len(prefix) > 0 {
			subjects = append(subjects, strings.Join(prefix, "."))
		}
		if len(prefix) == 4 {
			return
		}
		for _, tok := range alphabet {
			grow(append(prefix[:len(prefix):len(prefix)], tok))
		}
	}
	grow(nil)
	differ := 0
	for _, a := range subjects {
		for _, b := range subjects {
			if got, want := subjectsCollide(a, b), server.SubjectsCollide(a, b); got != want {
				if differ++; differ <= 10 {
					t.Errorf("subjectsCollide(%q, %q) = %v, the server's %v", a, b, got, want)
				}
			}
		}
	}
	// The subjects of every role's permissions against those of the log
	// and the services a front door asks about.
	asked := []string{"ts.in.acme.openai.s1", "ts.model.acme.r.i", "ts.call.acme.get", "tsv.memory.forget", "tsv.runs.get.acme",
		"tsv.keys.get.acme", "$JS.API.STREAM.INFO.TS_IN", "$JS.API.CONSUMER.CREATE.TS_CALLS.x", "ts.approval.acme.k", "_INBOX.x"}
	for _, role := range []Role{RoleProducer, RoleOperator, RoleReader, RoleExecutor, RoleAssembler, RoleVerifier, RoleMemory, RoleRuns, RoleKeyring} {
		p := permissions(Identity{Role: role, Tenant: "acme"})
		for _, list := range [][]string{p.Pub.Allow, p.Pub.Deny, p.Sub.Allow, p.Sub.Deny} {
			for _, s := range list {
				for _, a := range asked {
					if got, want := subjectsCollide(s, a), server.SubjectsCollide(s, a); got != want {
						t.Errorf("%s: subjectsCollide(%q, %q) = %v, the server's %v", role, s, a, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d subjects, %d pairs compared; %d differ", len(subjects), len(subjects)*len(subjects), differ)
}
