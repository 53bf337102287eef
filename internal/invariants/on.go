//go:build invariants

package invariants

// Enabled: this binary was built with the invariants tag.
const Enabled = true
