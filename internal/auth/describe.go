package auth

import (
	"fmt"
	"strings"
)

// DescribeTenant is the tenant Describe shows a producer's permissions
// for: every producer's are the same with its own tenant in its place.
const DescribeTenant = "acme"

// Describe prints what each role's NATS user may publish and subscribe
// to, in the order of Roles, as the permissions it is issued with
// (roles.go): allow lists, then deny lists (a deny wins over an allow).
// docs/security.md holds its output, kept true by a test.
func Describe() string {
	var b strings.Builder
	for _, r := range Roles {
		id := Identity{Role: r}
		if r == RoleProducer {
			id.Tenant = DescribeTenant
		}
		fmt.Fprintf(&b, "%s\n", id)
		switch r {
		case RoleAdmin:
			b.WriteString("  everything (no limits): the identity that creates the log, buckets and durable consumers\n")
			continue
		case RoleSys:
			b.WriteString("  nothing of the log's account (a user of the system account: server monitoring)\n")
			continue
		}
		p := permissions(id)
		list := func(what string, subjects []string) {
			if len(subjects) == 0 {
				return
			}
			fmt.Fprintf(&b, "  %s:\n", what)
			for _, s := range subjects {
				fmt.Fprintf(&b, "    %s\n", s)
			}
		}
		list("publish", p.Pub.Allow)
		list("publish denied", p.Pub.Deny)
		list("subscribe", p.Sub.Allow)
		list("subscribe denied", p.Sub.Deny)
		if p.Resp != nil {
			fmt.Fprintf(&b, "  replies: %d to each request it receives\n", p.Resp.MaxMsgs)
		}
	}
	return b.String()
}
