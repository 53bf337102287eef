package auth

import "path/filepath"

// WriteRoleDirs writes under dir what each role's processes of a cluster
// need, one directory a role, every file readable by its owner only:
// <role>/nats.creds and registry.pub for every role but producer (the
// registry's public key, what they trust), registry.key besides for the
// assembler (it records the tools file, signed), and
// producers/<tenant>/nats.creds and registry.pub for each of tenants. The
// users do not expire.
func (m *Material) WriteRoleDirs(dir string, tenants []string, registryPub, registryKey []byte) error {
	ids := []Identity{}
	for _, r := range Roles {
		if r != RoleProducer {
			ids = append(ids, Identity{Role: r})
		}
	}
	for _, t := range tenants {
		ids = append(ids, Identity{Role: RoleProducer, Tenant: t})
	}
	for _, id := range ids {
		u, err := m.Issue(id, 0)
		if err != nil {
			return err
		}
		data, err := u.Creds()
		if err != nil {
			return err
		}
		d := filepath.Join(dir, string(id.Role))
		if id.Tenant != "" {
			d = filepath.Join(dir, "producers", id.Tenant)
		}
		if err := WritePrivate(filepath.Join(d, "nats.creds"), data); err != nil {
			return err
		}
		if err := WritePrivate(filepath.Join(d, "registry.pub"), registryPub); err != nil {
			return err
		}
		if id.Role == RoleAssembler {
			if err := WritePrivate(filepath.Join(d, "registry.key"), registryKey); err != nil {
				return err
			}
		}
	}
	return nil
}
