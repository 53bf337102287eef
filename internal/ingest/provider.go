package ingest

import "strings"

// TaggedSuffix on a format name switches tagged-text parsing on (read
// <tool_call>{…}</tool_call> blocks in the text), e.g. openai-chat+tagged,
// as in the subject ts.in.acme.openai-chat+tagged.s1.
const TaggedSuffix = "+tagged"

// Provider reads a provider's name as users and manifests write it (any
// case, spaces around): a format name or alias for ParseFormat, possibly
// with TaggedSuffix; "tagged", "tagged-text", "tagged_text", "text",
// "hermes" and "qwen" (models that write their tool calls as tags in the
// text) are detected formats with tagged text; "", "other" and "unknown"
// are detected. tagged is whether tagged text is asked for besides (a
// flag); the result says whether it is on. Other names come back trimmed
// and lower-cased, for ParseFormat to accept or refuse.
func Provider(name string, tagged bool) (format string, taggedText bool) {
	p := strings.ToLower(strings.TrimSpace(name))
	if rest, ok := strings.CutSuffix(p, TaggedSuffix); ok {
		p, tagged = rest, true
	}
	switch p {
	case "tagged", "tagged-text", "tagged_text", "text", "hermes", "qwen":
		return string(FormatAuto), true
	case "", "other", "unknown":
		return string(FormatAuto), tagged
	}
	return p, tagged
}
