package main

import "github.com/toolstream/toolstream/internal/auth"

// The identities the commands take by themselves from the material in
// --data/auth, each the least role the command needs (--creds or
// --nats-user still win): reading commands read as the reader, decisions,
// memory and erasure act as the operator, a tenant's publishing and runs
// as that tenant's producer, the data keys' backup and the log's setup as
// the admin.
var (
	asReader   = auth.Identity{Role: auth.RoleReader}
	asOperator = auth.Identity{Role: auth.RoleOperator}
	asAdmin    = auth.Identity{Role: auth.RoleAdmin}
)

// asProducer is tenant's producer.
func asProducer(tenant string) auth.Identity {
	return auth.Identity{Role: auth.RoleProducer, Tenant: tenant}
}
