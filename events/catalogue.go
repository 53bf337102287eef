package events

import "sort"

type entry struct {
	version uint16
	new     func() Body
}

// catalogue is the fixed table of kinds this reader knows. It is never
// written after package initialisation.
var catalogue = map[Kind]entry{
	KindResponseStarted:    {1, func() Body { return new(ResponseStarted) }},
	KindOutputItemAdded:    {1, func() Body { return new(OutputItemAdded) }},
	KindArgumentsDelta:     {1, func() Body { return new(ArgumentsDelta) }},
	KindArgumentsDone:      {1, func() Body { return new(ArgumentsDone) }},
	KindOutputItemDone:     {1, func() Body { return new(OutputItemDone) }},
	KindItemAborted:        {1, func() Body { return new(ItemAborted) }},
	KindTextDelta:          {1, func() Body { return new(TextDelta) }},
	KindResponseCompleted:  {1, func() Body { return new(ResponseCompleted) }},
	KindResponseIncomplete: {1, func() Body { return new(ResponseIncomplete) }},
	KindResponseFailed:     {1, func() Body { return new(ResponseFailed) }},
	KindTick:               {1, func() Body { return new(Tick) }},
	KindInputRejected:      {1, func() Body { return new(InputRejected) }},
	KindRawSealed:          {1, func() Body { return new(RawSealed) }},

	KindCallCompleted:   {1, func() Body { return new(CallCompleted) }},
	KindCallRejected:    {1, func() Body { return new(CallRejected) }},
	KindCallIncomplete:  {1, func() Body { return new(CallIncomplete) }},
	KindResponseOutcome: {1, func() Body { return new(ResponseOutcome) }},

	KindExecutionStarted:  {1, func() Body { return new(ExecutionStarted) }},
	KindCallSucceeded:     {1, func() Body { return new(CallSucceeded) }},
	KindCallFailed:        {1, func() Body { return new(CallFailed) }},
	KindApprovalRequested: {1, func() Body { return new(ApprovalRequested) }},
	KindApprovalGranted:   {1, func() Body { return new(ApprovalGranted) }},
	KindApprovalDenied:    {1, func() Body { return new(ApprovalDenied) }},
	KindRegistryChanged:   {1, func() Body { return new(RegistryChanged) }},

	KindAnswerSubmitted:    {1, func() Body { return new(AnswerSubmitted) }},
	KindAnswerVerified:     {1, func() Body { return new(AnswerVerified) }},
	KindJudgeVerdict:       {1, func() Body { return new(JudgeVerdict) }},
	KindConstraintsChecked: {1, func() Body { return new(ConstraintsChecked) }},

	KindMemoryObserved:  {1, func() Body { return new(MemoryObserved) }},
	KindMemoryCorrected: {1, func() Body { return new(MemoryCorrected) }},
	KindMemoryForgotten: {1, func() Body { return new(MemoryForgotten) }},
	KindMemoryEmbedded:  {1, func() Body { return new(MemoryEmbedded) }},
	KindMemoryRecalled:  {1, func() Body { return new(MemoryRecalled) }},
	KindUserMessage:     {1, func() Body { return new(UserMessage) }},

	KindErased: {1, func() Body { return new(Erased) }},

	KindRunCall:         {1, func() Body { return new(RunCall) }},
	KindRoundSettled:    {1, func() Body { return new(RoundSettled) }},
	KindRunDegraded:     {1, func() Body { return new(RunDegraded) }},
	KindReplanSuggested: {1, func() Body { return new(ReplanSuggested) }},
	KindPlanWritten:     {1, func() Body { return new(PlanWritten) }},
	KindRunMessage:      {1, func() Body { return new(RunMessage) }},
	KindRunEnded:        {1, func() Body { return new(RunEnded) }},

	KindStreamFrame:  {1, func() Body { return new(StreamFrame) }},
	KindStreamFrames: {1, func() Body { return new(StreamFrames) }},
	KindStreamAnswer: {1, func() Body { return new(StreamAnswer) }},
	KindStreamPrompt: {1, func() Body { return new(StreamPrompt) }},
}

func sortKinds(k []Kind) { sort.Slice(k, func(i, j int) bool { return k[i] < k[j] }) }
