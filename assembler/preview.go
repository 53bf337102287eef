package assembler

import "github.com/toolstream/toolstream/events"

// preview is a placeholder replaced by the incremental parser.
type preview struct{}

func (a *Assembler) feedPreview(ev *events.Event, c *call, delta string) {}
func (a *Assembler) dropPreview(ev *events.Event, c *call)               {}
func (a *Assembler) dropPreviewKey(tenant, resp, item string)            {}
