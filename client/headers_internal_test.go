package client

import (
	"testing"

	"github.com/toolstream/toolstream/assembler"
)

// TestHeadersAreIngests: the raw protocol's headers are spelled as the
// ingest projection reads them.
func TestHeadersAreIngests(t *testing.T) {
	for ours, theirs := range map[string]string{
		headerTagged: assembler.HeaderTagged, headerEnd: assembler.HeaderEnd, headerUser: assembler.HeaderUser,
		headerSession: assembler.HeaderSession, headerRun: assembler.HeaderRun, headerStep: assembler.HeaderStep, headerSeq: assembler.HeaderSeq,
	} {
		if ours != theirs {
			t.Errorf("client's %s, ingest's %s", ours, theirs)
		}
	}
}
