package auth

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// userJWTBytesMax bounds a user JWT: nats-server reads the CONNECT line
// that carries it with its max_control_line, 4 KiB by default, so a role's
// permissions must stay well below that (tested for every role).
const userJWTBytesMax = 3 << 10

// ProducerSubsMax bounds the subscriptions one connection of a tenant's
// producer may hold (the server refuses the next one, maximum subscriptions
// exceeded): a producer subscribes to its tenant's subjects as it likes, and
// each subscription costs serve memory while it lives and time to remove
// when the connection goes. A producer program watches its outcomes with a
// few; ten thousand leave room for one a run of many concurrent runs.
const ProducerSubsMax = 10_000

// User is an issued identity: its JWT and seed.
type User struct {
	Identity Identity
	JWT      string
	Seed     []byte
}

// Issue signs a new user for id, valid for ttl (0: no expiry). Users of
// every role are signed by the log's account, except RoleSys, signed by
// the system account. It returns ErrUnknownRole or events.ErrInvalidTenant
// for an identity that is not one.
func (m *Material) Issue(id Identity, ttl time.Duration) (*User, error) {
	if err := id.validate(); err != nil {
		return nil, err
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	pk, _ := kp.PublicKey()
	uc := jwt.NewUserClaims(pk)
	uc.Name = id.String()
	uc.Permissions = permissions(id)
	if id.Role == RoleProducer {
		uc.Limits.Subs = ProducerSubsMax
	}
	if ttl > 0 {
		uc.Expires = time.Now().Add(ttl).Unix()
	}
	signer := m.account
	if id.Role == RoleSys {
		signer = m.system
	}
	token, err := uc.Encode(signer)
	if err != nil {
		return nil, fmt.Errorf("auth: user JWT for %s: %w", id, err)
	}
	seed, _ := kp.Seed()
	return &User{Identity: id, JWT: token, Seed: seed}, nil
}

// Creds is the user as a .creds file, the format nats-server's tools, the
// nats CLI and every NATS client library read.
func (u *User) Creds() ([]byte, error) {
	b, err := jwt.FormatUserConfig(u.JWT, u.Seed)
	if err != nil {
		return nil, fmt.Errorf("auth: creds: %w", err)
	}
	return b, nil
}

// Options are the nats.go options that connect as the user: its JWT and
// seed, and its inbox prefix.
func (u *User) Options() []nats.Option {
	return []nats.Option{
		nats.UserJWTAndSeed(u.JWT, string(u.Seed)),
		nats.CustomInboxPrefix(u.Identity.InboxPrefix()),
	}
}

// CredsIdentity reads the identity a .creds file was issued for (the name
// in its JWT), so a client can take the role's inbox prefix. A creds file
// that was not issued by Toolstream returns ErrUnknownRole.
func CredsIdentity(path string) (Identity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Identity{}, fmt.Errorf("auth: %w", err)
	}
	token, err := jwt.ParseDecoratedJWT(b)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %s: %v", ErrMaterial, path, err)
	}
	uc, err := jwt.DecodeUserClaims(token)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %s: %v", ErrMaterial, path, err)
	}
	return parseIdentity(uc.Name)
}

// CredsOptions are the nats.go options that connect with a .creds file:
// the file, and the inbox prefix of the Toolstream identity it holds (none
// for a creds file Toolstream did not issue).
func CredsOptions(path string) []nats.Option {
	opts := []nats.Option{nats.UserCredentials(path)}
	if id, err := CredsIdentity(path); err == nil {
		opts = append(opts, nats.CustomInboxPrefix(id.InboxPrefix()))
	}
	return opts
}

// ServerTrust is what a server needs to trust the material's operator
// and refuse every client without a user JWT signed by one of its
// accounts: the operator's claims, the system account's public key, and
// each account's JWT by its public key (the system account's and the
// log's). bus.ConfigureServer sets it on an embedded server; ServerConfig
// writes it for an external one.
func (m *Material) ServerTrust() (operator *jwt.OperatorClaims, system string, accounts map[string]string) {
	return m.operatorClaims, m.SystemPublicKey(), map[string]string{m.SystemPublicKey(): m.systemJWT, m.AccountPublicKey(): m.accountJWT}
}

// ServerConfig is the fragment of a nats-server configuration file that
// gives an external server or cluster the same trust as ServerTrust:
// include it from every server's file.
func (m *Material) ServerConfig() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Toolstream's operator and accounts (toolstream auth init). Generated; do not edit.\n")
	fmt.Fprintf(&b, "operator: %q\n", m.operatorJWT)
	fmt.Fprintf(&b, "system_account: %s\n", m.SystemPublicKey())
	fmt.Fprintf(&b, "resolver: MEMORY\n")
	fmt.Fprintf(&b, "resolver_preload: {\n  %s: %q\n  %s: %q\n}\n", m.SystemPublicKey(), m.systemJWT, m.AccountPublicKey(), m.accountJWT)
	return b.String()
}
