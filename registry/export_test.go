package registry

import "github.com/toolstream/toolstream/events"

// SignRaw signs rc as it is, whatever its spec holds: what an operator's
// key could be made to sign, for the tests that show a valid signature does
// not make any spec acceptable.
func SignRaw(k *SigningKey, rc *events.RegistryChanged) {
	rc.KeyID = k.KeyID()
	rc.Sig = k.sign(signedMessage(rc))
}

// AnyObject reports whether Validate takes t's input schema as accepting
// every object, without asking it.
func AnyObject(t *Tool) bool { return t.anyObject }
