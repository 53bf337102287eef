package auth

import (
	"fmt"
	"os"

	"github.com/nats-io/jwt/v2"
	"github.com/toolstream/toolstream/events"
)

// MsgIDKey is the message-id key (events.MsgID) of serve's own components
// on this installation: derived from the log account's seed, which only
// the material's owner holds, so it is the same after every restart and
// the same for every process that loads this material (serve, and the
// commands run with its --data), and nobody who holds only a user's
// credential can make it.
func (m *Material) MsgIDKey() []byte {
	seed, _ := m.account.Seed()
	return events.DeriveMsgIDKey(append([]byte("account:"), seed...))
}

// CredsMsgIDKey is the message-id key of the identity of a .creds file:
// derived from its seed, so every process given the same file (a role's
// processes of a cluster, auth.WriteRoleDirs; a producer run again) tags
// its message ids alike, and nobody without the file can.
func CredsMsgIDKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	kp, err := jwt.ParseDecoratedNKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMaterial, path, err)
	}
	seed, err := kp.Seed()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMaterial, path, err)
	}
	return events.DeriveMsgIDKey(append([]byte("user:"), seed...)), nil
}
