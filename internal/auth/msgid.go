package auth

import (
	"fmt"
	"os"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
	"github.com/toolstream/toolstream/events"
)

// msgIDKeyLabel is what a user's key signs to make its message-id key.
const msgIDKeyLabel = "toolstream message-id key v1"

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

// SignerMsgIDKey is the message-id key of the user whose key sign signs
// with: derived from its Ed25519 signature of a fixed label, which is
// deterministic and which only the holder of the seed can make. The same
// user (the same creds, whatever client reads them) always gets the same
// key.
func SignerMsgIDKey(sign func([]byte) ([]byte, error)) ([]byte, error) {
	sig, err := sign([]byte(msgIDKeyLabel))
	if err != nil {
		return nil, fmt.Errorf("auth: message-id key: %w", err)
	}
	return events.DeriveMsgIDKey(sig), nil
}

// CredsMsgIDKey is the message-id key of the identity of a .creds file
// (SignerMsgIDKey of its seed), so every process given the same file (a
// role's processes of a cluster, auth.WriteRoleDirs; a producer run
// again) tags its message ids alike, and nobody without the file can.
func CredsMsgIDKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	kp, err := jwt.ParseDecoratedNKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMaterial, path, err)
	}
	return SignerMsgIDKey(kp.Sign)
}

// ConnMsgIDKey is the message-id key of the user nc authenticated as with
// an nkey (a .creds file, a JWT and seed): the same as CredsMsgIDKey of
// that user's creds. ok is false for a connection without one (a user
// name and password, a token, none).
func ConnMsgIDKey(nc *nats.Conn) (key []byte, ok bool) {
	if nc == nil || nc.Opts.SignatureCB == nil {
		return nil, false
	}
	key, err := SignerMsgIDKey(nc.Opts.SignatureCB)
	return key, err == nil
}
