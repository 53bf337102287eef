package executor

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolstream/toolstream/registry"
)

// secretBytesMax bounds a secret read from a file.
const secretBytesMax = 64 << 10

// resolveSecret returns what a reference of a contract names, read now (at
// every call, so a rotated secret takes effect without a restart): the
// executor's environment variable, or the content of the file with one
// trailing newline dropped. Its errors name the reference, never a value.
func resolveSecret(r registry.Ref) (string, error) {
	switch r.Source {
	case registry.RefEnv:
		v, ok := os.LookupEnv(r.Name)
		if !ok {
			return "", fmt.Errorf("%s is not set: the executor has no environment variable %s", r, r.Name)
		}
		return v, nil
	case registry.RefFile:
		f, err := os.Open(r.Name)
		if err != nil {
			return "", fmt.Errorf("%s cannot be read: %v", r, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, secretBytesMax+1))
		if err != nil {
			return "", fmt.Errorf("%s cannot be read: %v", r, err)
		}
		if len(b) > secretBytesMax {
			return "", fmt.Errorf("%s is larger than %d bytes", r, secretBytesMax)
		}
		s := strings.TrimSuffix(string(b), "\n")
		return strings.TrimSuffix(s, "\r"), nil
	}
	return "", fmt.Errorf("%s: unknown source %q", r, r.Source)
}
