package client

import (
	"testing"

	"github.com/toolstream/toolstream/assembler"
	"github.com/toolstream/toolstream/executor"
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

// TestApprovalIDIsTheExecutors: a decision's id is the one the executor
// deduplicates decisions by.
func TestApprovalIDIsTheExecutors(t *testing.T) {
	if k := "acme/run/1/call"; approvalID(k) != executor.ApprovalID(k) {
		t.Fatalf("%s ≠ %s", approvalID(k), executor.ApprovalID(k))
	}
}
