package registry

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Key files are standard: the private key is PEM "PRIVATE KEY" (PKCS #8),
// the public key PEM "PUBLIC KEY" (PKIX), as openssl writes them
// (openssl genpkey -algorithm ed25519; openssl pkey -pubout), so an operator
// may make and keep them with the usual tools.

// keyFileBytesMax bounds a key file read by LoadSigningKey or
// LoadTrustedKeys: a trust file holds a few keys (rotation), not thousands.
const keyFileBytesMax = 64 << 10

// SigningKey is the operator's key that signs registry changes. It is
// immutable and safe for concurrent use.
type SigningKey struct {
	priv ed25519.PrivateKey
	id   string
}

// GenerateKey returns a new ed25519 signing key (crypto/rand), kept in
// memory only: one-shot commands that make a throwaway registry use it.
func GenerateKey() (*SigningKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("registry: generate key: %w", err)
	}
	return newSigningKey(priv), nil
}

func newSigningKey(priv ed25519.PrivateKey) *SigningKey {
	return &SigningKey{priv: priv, id: KeyID(priv.Public().(ed25519.PublicKey))}
}

// KeyID names the key in RegistryChanged.KeyID.
func (k *SigningKey) KeyID() string { return k.id }

// Public returns the public half, the one processors trust.
func (k *SigningKey) Public() ed25519.PublicKey { return k.priv.Public().(ed25519.PublicKey) }

// Trust returns a Trust holding only k's public key (tests, one-shot
// commands that sign and verify in one process).
func (k *SigningKey) Trust() *Trust { return NewTrust(k.Public()) }

func (k *SigningKey) sign(msg []byte) []byte { return ed25519.Sign(k.priv, msg) }

// KeyID is the id of a public key: the first 8 bytes of the SHA-256 of its
// 32 raw bytes, in hex (16 characters).
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// WriteKeyPair makes a new signing key and writes it: the private key to
// privPath (PEM PKCS #8, mode 0600) and the public key to pubPath (PEM
// PKIX, mode 0644), creating missing directories with mode 0700. It never
// overwrites: an existing file is an error wrapping fs.ErrExist, and
// nothing is left half-written.
func WriteKeyPair(privPath, pubPath string) (*SigningKey, error) {
	k, err := GenerateKey()
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return nil, fmt.Errorf("registry: write key pair: %w", err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return nil, fmt.Errorf("registry: write key pair: %w", err)
	}
	if err := writeNew(privPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, err
	}
	if err := writeNew(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o644); err != nil {
		os.Remove(privPath) // a private key without its public half is of no use to anyone
		return nil, err
	}
	return k, nil
}

// writeNew writes data to a file that must not exist yet, through a
// temporary file in the same directory, so a crash never leaves a partial
// key behind.
func writeNew(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("registry: write key pair: %s: %w", path, os.ErrExist)
	}
	f, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful link, only the temporary name goes
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	if err := os.Link(tmp, path); err != nil { // fails if path appeared meanwhile
		return fmt.Errorf("registry: write key pair: %w", err)
	}
	return nil
}

// LoadSigningKey reads an ed25519 private key from a PEM PKCS #8 file.
func LoadSigningKey(path string) (*SigningKey, error) {
	data, err := readKeyFile(path)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("registry: %s: want a PEM \"PRIVATE KEY\" block (PKCS #8)", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("registry: %s: %w", path, err)
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("registry: %s: a %T, want an ed25519 key", path, k)
	}
	return newSigningKey(priv), nil
}

// Trust is the set of public keys whose registry changes take effect. It
// is immutable and safe for concurrent use. A nil or empty Trust trusts
// nothing: every change is rejected.
type Trust struct {
	keys map[string]ed25519.PublicKey // by KeyID
}

// NewTrust returns a Trust of keys. Keys of the wrong length are left out.
func NewTrust(keys ...ed25519.PublicKey) *Trust {
	t := &Trust{keys: make(map[string]ed25519.PublicKey, len(keys))}
	for _, k := range keys {
		if len(k) == ed25519.PublicKeySize {
			t.keys[KeyID(k)] = slices.Clone(k)
		}
	}
	return t
}

// LoadTrustedKeys reads the PEM "PUBLIC KEY" (PKIX, ed25519) blocks of
// each file; a file may hold several (the old and the new key while they
// rotate). Text between blocks is ignored. A file without a key, a block of
// another type or a key of another algorithm is an error.
func LoadTrustedKeys(paths ...string) (*Trust, error) {
	var keys []ed25519.PublicKey
	for _, path := range paths {
		data, err := readKeyFile(path)
		if err != nil {
			return nil, err
		}
		n := 0
		for {
			var block *pem.Block
			block, data = pem.Decode(data)
			if block == nil {
				break
			}
			if block.Type != "PUBLIC KEY" {
				return nil, fmt.Errorf("registry: %s: a PEM %q block, want \"PUBLIC KEY\" (PKIX)", path, block.Type)
			}
			k, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("registry: %s: %w", path, err)
			}
			pub, ok := k.(ed25519.PublicKey)
			if !ok {
				return nil, fmt.Errorf("registry: %s: a %T, want an ed25519 key", path, k)
			}
			keys = append(keys, pub)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("registry: %s: no PEM \"PUBLIC KEY\" block", path)
		}
	}
	return NewTrust(keys...), nil
}

func readKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("registry: key: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, keyFileBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("registry: key: %w", err)
	}
	if len(data) > keyFileBytesMax {
		return nil, fmt.Errorf("registry: key %s: larger than %d bytes", path, keyFileBytesMax)
	}
	return data, nil
}

// KeyIDs returns the ids of the trusted keys, sorted.
func (t *Trust) KeyIDs() []string {
	if t == nil {
		return nil
	}
	ids := make([]string, 0, len(t.keys))
	for id := range t.keys {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Len is the number of trusted keys; 0 trusts nothing.
func (t *Trust) Len() int {
	if t == nil {
		return 0
	}
	return len(t.keys)
}

func (t *Trust) key(id string) (ed25519.PublicKey, bool) {
	if t == nil {
		return nil, false
	}
	k, ok := t.keys[id]
	return k, ok
}

// With returns a Trust holding t's keys and keys.
func (t *Trust) With(keys ...ed25519.PublicKey) *Trust {
	all := slices.Clone(keys)
	if t != nil {
		for _, k := range t.keys {
			all = append(all, k)
		}
	}
	return NewTrust(all...)
}
