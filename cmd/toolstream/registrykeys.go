package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"

	"github.com/toolstream/toolstream/registry"
)

// The registry keys (docs/design.md invariant 10): the operator's signing key,
// with which serve --tools records the tools file in the log, and the
// public keys whose registry changes the assembler and the executors
// accept. By default both live in --data/auth, made by serve --tools on its
// first start.

func (g *globals) registryKeyPath() (path string, isDefault bool) {
	if g.registryKeyFile != "" {
		return g.registryKeyFile, false
	}
	return filepath.Join(g.data, "auth", "registry.key"), true
}

func (g *globals) registryTrustPaths() (paths []string, isDefault bool) {
	if g.registryTrustFiles != "" {
		return splitList(g.registryTrustFiles), false
	}
	return []string{filepath.Join(g.data, "auth", "registry.pub")}, true
}

// signingKey loads the registry signing key (--registry-key). With create,
// a missing default key file is made, with its public half at the default
// --registry-trust path (serve --tools on its first start); a missing
// --registry-key file is an error.
func (g *globals) signingKey(log *slog.Logger, create bool) (*registry.SigningKey, error) {
	path, isDefault := g.registryKeyPath()
	k, err := registry.LoadSigningKey(path)
	if errors.Is(err, fs.ErrNotExist) && create && isDefault {
		pub := filepath.Join(g.data, "auth", "registry.pub")
		if k, err = registry.WriteKeyPair(path, pub); err == nil {
			log.Info("registry signing key created", "key", path, "public", pub, "key_id", k.KeyID())
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--registry-key: %w", err)
	}
	return k, nil
}

// registryTrust returns the keys whose registry changes take effect: those
// of --registry-trust, and the public half of own, or else of the
// --registry-key file when it exists (a process trusts what its operator
// signs with). A missing default trust file adds nothing; an empty Trust
// rejects every change, and is logged.
func (g *globals) registryTrust(log *slog.Logger, own *registry.SigningKey) (*registry.Trust, error) {
	paths, isDefault := g.registryTrustPaths()
	trust, err := registry.LoadTrustedKeys(paths...)
	if errors.Is(err, fs.ErrNotExist) && isDefault {
		trust, err = registry.NewTrust(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("--registry-trust: %w", err)
	}
	if own == nil {
		path, _ := g.registryKeyPath()
		own, _ = registry.LoadSigningKey(path) // absent: nothing to add
	}
	if own != nil {
		trust = trust.With(own.Public())
	}
	if trust.Len() == 0 {
		log.Warn("no registry key is trusted: every registry change is rejected (give --registry-trust, or run serve --tools once to make the keys)",
			"trust", paths)
	}
	return trust, nil
}

// registryKeys loads serve's registry keys into d: the signing key when it
// signs (sign: serve --tools; made on first start), and the trust.
func (g *globals) registryKeys(log *slog.Logger, d *deps, sign bool) (*registry.SigningKey, error) {
	var key *registry.SigningKey
	var err error
	if sign {
		if key, err = g.signingKey(log, true); err != nil {
			return nil, err
		}
	}
	d.trust, err = g.registryTrust(log, key)
	return key, err
}
