//go:build !invariants

package invariants

// Enabled: this binary was built without the invariants tag, and the
// checks are compiled out.
const Enabled = false
