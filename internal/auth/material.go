package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"
)

// Names in the material's directory. The seeds (.nk) are secrets; the JWTs
// are public but kept owner-only too, as the directory is.
const (
	operatorSeedFile = "operator.nk"
	operatorJWTFile  = "operator.jwt"
	systemSeedFile   = "sys.nk"
	systemJWTFile    = "sys.jwt"
	accountSeedFile  = "account.nk"
	accountJWTFile   = "account.jwt" // written last: its presence means the material is whole
	operatorName     = "toolstream"
	// AccountName is the name of the log's account in its JWT.
	AccountName = "TS"
	// SystemAccountName is the name of the system account in its JWT.
	SystemAccountName = "SYS"
	fileMode          = 0o600
	dirMode           = 0o700
	// createWaitMax bounds how long Ensure waits for another process that
	// is creating the same material.
	createWaitMax = 5 * time.Second
)

// Material is one installation's security material: the operator, the
// system account and the log's account, each a key pair and a JWT.
type Material struct {
	dir                                string
	operator, system, account          nkeys.KeyPair
	operatorJWT, systemJWT, accountJWT string
	operatorClaims                     *jwt.OperatorClaims
}

// Dir is the directory the material lives in.
func (m *Material) Dir() string { return m.dir }

// AccountPublicKey is the log account's public key (its JetStream files
// live under nats/jetstream/<key> in an embedded server's data).
func (m *Material) AccountPublicKey() string { pk, _ := m.account.PublicKey(); return pk }

// SystemPublicKey is the system account's public key.
func (m *Material) SystemPublicKey() string { pk, _ := m.system.PublicKey(); return pk }

// Ensure loads the material in dir, creating it when dir holds none. It
// returns ErrInsecure when a file of it can be read by others than its
// owner, and an error wrapping ErrMaterial when it is incomplete or does
// not verify.
func Ensure(dir string) (*Material, error) {
	m, err := Load(dir)
	if !errors.Is(err, ErrNoMaterial) {
		return m, err
	}
	if err := create(dir); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		// Another process is creating it: wait for its last file.
		deadline := time.Now().Add(createWaitMax)
		for time.Now().Before(deadline) {
			if _, serr := os.Stat(filepath.Join(dir, accountJWTFile)); serr == nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return Load(dir)
}

// Load reads the material in dir. It returns ErrNoMaterial when dir holds
// none, ErrInsecure when a file is readable by others, and an error
// wrapping ErrMaterial when a file is missing, unreadable or does not
// verify.
func Load(dir string) (*Material, error) {
	if _, err := os.Stat(filepath.Join(dir, accountJWTFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNoMaterial, dir)
	}
	if err := checkPrivate(dir, true); err != nil {
		return nil, err
	}
	m := &Material{dir: dir}
	var err error
	load := func(seedFile, jwtFile string, kp *nkeys.KeyPair, token *string) {
		if err != nil {
			return
		}
		var seed, tok []byte
		if seed, err = readPrivate(filepath.Join(dir, seedFile)); err != nil {
			return
		}
		if *kp, err = nkeys.FromSeed(seed); err != nil {
			err = fmt.Errorf("%w: %s: %v", ErrMaterial, seedFile, err)
			return
		}
		if tok, err = readPrivate(filepath.Join(dir, jwtFile)); err != nil {
			return
		}
		*token = string(tok)
	}
	load(operatorSeedFile, operatorJWTFile, &m.operator, &m.operatorJWT)
	load(systemSeedFile, systemJWTFile, &m.system, &m.systemJWT)
	load(accountSeedFile, accountJWTFile, &m.account, &m.accountJWT)
	if err != nil {
		return nil, err
	}
	if err := m.verify(); err != nil {
		return nil, err
	}
	return m, nil
}

// verify checks that each JWT is signed by the key it should be and names
// the key pair stored beside it.
func (m *Material) verify() error {
	oc, err := jwt.DecodeOperatorClaims(m.operatorJWT)
	if err != nil {
		return fmt.Errorf("%w: operator JWT: %v", ErrMaterial, err)
	}
	opk, _ := m.operator.PublicKey()
	if oc.Subject != opk || oc.Issuer != opk {
		return fmt.Errorf("%w: the operator JWT is not the operator key's", ErrMaterial)
	}
	for _, a := range []struct {
		name  string
		token string
		kp    nkeys.KeyPair
	}{{"system", m.systemJWT, m.system}, {"account", m.accountJWT, m.account}} {
		ac, err := jwt.DecodeAccountClaims(a.token)
		if err != nil {
			return fmt.Errorf("%w: %s JWT: %v", ErrMaterial, a.name, err)
		}
		pk, _ := a.kp.PublicKey()
		if ac.Subject != pk || ac.Issuer != opk {
			return fmt.Errorf("%w: the %s JWT is not the %s key's, signed by the operator", ErrMaterial, a.name, a.name)
		}
	}
	if oc.SystemAccount != m.SystemPublicKey() {
		return fmt.Errorf("%w: the operator names another system account", ErrMaterial)
	}
	m.operatorClaims = oc
	return nil
}

// create writes new material into dir. Each file is created exclusively,
// the account JWT last, so a concurrent creator fails with fs.ErrExist.
func create(dir string) error {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	if err := checkPrivate(dir, false); err != nil {
		return err
	}
	op, err := nkeys.CreateOperator()
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	sys, err := nkeys.CreateAccount()
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	acc, err := nkeys.CreateAccount()
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	opk, _ := op.PublicKey()
	spk, _ := sys.PublicKey()
	apk, _ := acc.PublicKey()
	oc := jwt.NewOperatorClaims(opk)
	oc.Name = operatorName
	oc.SystemAccount = spk
	opJWT, err := oc.Encode(op)
	if err != nil {
		return fmt.Errorf("auth: operator JWT: %w", err)
	}
	sc := jwt.NewAccountClaims(spk)
	sc.Name = SystemAccountName
	sysJWT, err := sc.Encode(op)
	if err != nil {
		return fmt.Errorf("auth: system JWT: %w", err)
	}
	ac := jwt.NewAccountClaims(apk)
	ac.Name = AccountName
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: jwt.NoLimit, DiskStorage: jwt.NoLimit,
		Streams: jwt.NoLimit, Consumer: jwt.NoLimit, MaxAckPending: jwt.NoLimit}
	accJWT, err := ac.Encode(op)
	if err != nil {
		return fmt.Errorf("auth: account JWT: %w", err)
	}
	seed := func(kp nkeys.KeyPair) []byte { s, _ := kp.Seed(); return s }
	for _, f := range []struct {
		name string
		data []byte
	}{
		{operatorSeedFile, seed(op)}, {operatorJWTFile, []byte(opJWT)},
		{systemSeedFile, seed(sys)}, {systemJWTFile, []byte(sysJWT)},
		{accountSeedFile, seed(acc)}, {accountJWTFile, []byte(accJWT)},
	} {
		if err := writeExclusive(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

func writeExclusive(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("auth: write %s: %w", path, err)
	}
	return nil
}

// WritePrivate writes data to path readable by its owner only, replacing
// the file atomically.
func WritePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(fileMode); err != nil {
		tmp.Close()
		return fmt.Errorf("auth: %w", err)
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("auth: write %s: %w", path, err)
	}
	return nil
}

// readPrivate reads a file of the material, refusing one others can read.
func readPrivate(path string) ([]byte, error) {
	if err := checkPrivate(path, false); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMaterial, err)
	}
	return b, nil
}

// checkPrivate returns ErrInsecure when path (a file, or with dir a
// directory) gives any access to its group or others.
func checkPrivate(path string, dir bool) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrMaterial, err)
	}
	if dir && !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrMaterial, path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		want := "600"
		if fi.IsDir() {
			want = "700"
		}
		return fmt.Errorf("%w: %s has mode %o; run chmod %s %s", ErrInsecure, path, fi.Mode().Perm(), want, path)
	}
	return nil
}
