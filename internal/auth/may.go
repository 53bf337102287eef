package auth

// MayPublish reports whether an identity of id's role may publish on
// subject: the same permissions its NATS user is issued with (roles.go).
// Other front doors (the console) decide who may act by it, so a role
// means the same thing wherever it is used. The admin may publish
// anything; the sys role reaches none of the log's subjects.
func (id Identity) MayPublish(subject string) bool {
	switch id.Role {
	case RoleAdmin:
		return true
	case RoleSys:
		return false
	}
	p := permissions(id)
	for _, deny := range p.Pub.Deny {
		if subjectsCollide(deny, subject) {
			return false
		}
	}
	for _, allow := range p.Pub.Allow {
		if subjectsCollide(allow, subject) {
			return true
		}
	}
	return false
}
