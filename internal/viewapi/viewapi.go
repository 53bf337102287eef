// Package viewapi holds the subjects of the views' services: a live
// view's digest (tsv.digest.<projection>) and its paged dump
// (tsv.dump.<projection>). Each projection has subjects of its own, so a
// role is allowed to answer only the projections it runs (package auth)
// and no other role's credential answers for them; the process running a
// projection answers them (package viewdump), and every asker
// (replay --verify and --diff, an erasure's wait, the console's forget)
// asks the projection's subject. A partition of a projection, named
// <projection>-p<N> (assembler.PartitionName), is answered on
// <prefix>.<projection>.p<N>, so the role running a projection's
// partitions is allowed them all by one wildcard (Partitions).
package viewapi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The services' subject prefixes.
const (
	// DigestPrefix answers a projection's live digest (projector.Digest as
	// JSON).
	DigestPrefix = "tsv.digest"
	// DumpPrefix pages through a projection's live view's rows.
	DumpPrefix = "tsv.dump"
)

// Prefixes are both services' prefixes.
var Prefixes = []string{DigestPrefix, DumpPrefix}

// ErrBadName is a projection name that cannot be a subject token: empty,
// or holding a '.', a wildcard or white space.
var ErrBadName = errors.New("viewapi: not a projection name")

// partitionSep separates a partition's projection from its number
// (assembler.PartitionName: assembler-p3).
const partitionSep = "-p"

// Subject is the subject of the service prefix for the projection name.
func Subject(prefix, name string) (string, error) {
	if !token(name) {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	if base, p, ok := partition(name); ok {
		return prefix + "." + base + ".p" + strconv.Itoa(p), nil
	}
	return prefix + "." + name, nil
}

// Partitions is the subject, a wildcard, of the service prefix for every
// partition of the projection base.
func Partitions(prefix, base string) string { return prefix + "." + base + ".*" }

// Projection reads the projection name back from a subject of the service
// prefix (the reverse of Subject).
func Projection(prefix, subject string) (string, bool) {
	rest, ok := strings.CutPrefix(subject, prefix+".")
	if !ok {
		return "", false
	}
	base, part, partitioned := strings.Cut(rest, ".")
	if !partitioned {
		return base, token(base)
	}
	name := base + partitionSep + strings.TrimPrefix(part, "p")
	if s, err := Subject(prefix, name); err != nil || s != subject {
		return "", false
	}
	return name, true
}

// partition splits a partition's name into its projection and number.
func partition(name string) (string, int, bool) {
	i := strings.LastIndex(name, partitionSep)
	if i <= 0 {
		return "", 0, false
	}
	digits := name[i+len(partitionSep):]
	p, err := strconv.Atoi(digits)
	if err != nil || p < 0 || strconv.Itoa(p) != digits {
		return "", 0, false
	}
	return name[:i], p, true
}

// token reports whether s is one subject token.
func token(s string) bool {
	return s != "" && !strings.ContainsAny(s, ".*> \t\r\n")
}
