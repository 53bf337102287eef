package stack

import "errors"

// ErrUnknown is a projection or component name the stack does not know.
var ErrUnknown = errors.New("unknown projection")

// ErrJudgeWithoutVerifier is a judge (Config.Judge) asked of a stack that
// does not run the verifier: the judge reads the verifier's view.
var ErrJudgeWithoutVerifier = errors.New("the judge reads the verifier's view: run the verifier in this process")
