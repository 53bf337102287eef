package ingest

// The Gemini adapter's fields, read by the scanner (jsonscan.go) in one
// pass: what decodeGemini's encoding/json decode reads, with the same
// result wherever the scanner answers.

var (
	gemChunkNames     = []string{"candidates", "promptFeedback", "usageMetadata", "modelVersion", "responseId", "error"}
	gemFeedbackNames  = []string{"blockReason"}
	gemCandidateNames = []string{"index", "content", "finishReason"}
	gemContentNames   = []string{"parts"}
	gemPartNames      = []string{"text", "thought", "functionCall"}
	gemCallNames      = []string{"id", "name", "args", "partialArgs", "willContinue"}
	gemPartialNames   = []string{"jsonPath", "stringValue", "numberValue", "boolValue", "nullValue", "willContinue"}
)

// scanGemini decodes raw as decodeGemini does; ok false leaves the event
// to encoding/json.
func scanGemini(raw []byte) (c *gemChunk, ok bool) {
	c, ok, _ = scanGeminiChecked(raw)
	return c, ok
}

// scanGeminiChecked is scanGemini, and says when a key of the chunk is a
// misspelling of a field the adapter reads (scanner.other).
func scanGeminiChecked(raw []byte) (c *gemChunk, ok bool, bad error) {
	s := &scanner{b: raw, spell: true}
	c = new(gemChunk)
	var m seen
	ok = s.top(func(key []byte, i int) int {
		if b := index(gemChunkNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "candidates":
			return s.sliceOf(i, func() { c.Candidates = nil }, func() { c.Candidates = []gemCandidate{} }, func(j int) int {
				c.Candidates = append(c.Candidates, gemCandidate{})
				return s.gemCandidate(&c.Candidates[len(c.Candidates)-1], j)
			})
		case "promptFeedback":
			fb := new(struct {
				BlockReason string `json:"blockReason"`
			})
			var fm seen
			end := s.objectPtr(i, func() { fb = nil }, func(k []byte, j int) int {
				if string(k) == "blockReason" {
					if !s.once(&fm, 0) {
						return -1
					}
					return s.stringValue(j, &fb.BlockReason)
				}
				return s.other(k, j, gemFeedbackNames)
			})
			c.PromptFeedback = fb
			return end
		case "usageMetadata":
			return s.raw(i, (*[]byte)(&c.UsageMetadata))
		case "modelVersion":
			return s.stringValue(i, &c.ModelVersion)
		case "responseId":
			return s.stringValue(i, &c.ResponseID)
		case "error":
			return s.apiErrorPtr(i, &c.Error)
		}
		return s.other(key, i, gemChunkNames)
	})
	return c, ok && !s.fail, s.misspelt
}

// sliceOf reads a slice field: null calls isNull (nil), an empty array
// calls empty (a non-nil empty slice, as encoding/json makes), and each
// element of another array is read by elem.
func (s *scanner) sliceOf(i int, isNull, empty func(), elem func(i int) int) int {
	if s.b[i] == 'n' {
		isNull()
		return s.literal(i, "null")
	}
	n := 0
	end := s.arrayOf(i, func(j int) int {
		n++
		return elem(j)
	})
	if end >= 0 && n == 0 {
		empty()
	}
	return end
}

// boolValue reads a bool field: null leaves it unchanged.
func (s *scanner) boolValue(i int, dst *bool) int {
	switch s.b[i] {
	case 'n':
		return s.literal(i, "null")
	case 't':
		*dst = true
		return s.literal(i, "true")
	case 'f':
		*dst = false
		return s.literal(i, "false")
	}
	return s.giveUp()
}

func (s *scanner) gemCandidate(cand *gemCandidate, i int) int {
	var m seen
	return s.structElem(i, func(key []byte, j int) int {
		if b := index(gemCandidateNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "index":
			return s.intPtr(j, &cand.Index)
		case "content":
			ct := new(struct {
				Parts []gemPart `json:"parts"`
			})
			var cm seen
			end := s.objectPtr(j, func() { ct = nil }, func(k []byte, l int) int {
				if string(k) == "parts" {
					if !s.once(&cm, 0) {
						return -1
					}
					return s.sliceOf(l, func() { ct.Parts = nil }, func() { ct.Parts = []gemPart{} }, func(e int) int {
						ct.Parts = append(ct.Parts, gemPart{})
						return s.gemPart(&ct.Parts[len(ct.Parts)-1], e)
					})
				}
				return s.other(k, l, gemContentNames)
			})
			cand.Content = ct
			return end
		case "finishReason":
			return s.stringValue(j, &cand.FinishReason)
		}
		return s.other(key, j, gemCandidateNames)
	})
}

func (s *scanner) gemPart(p *gemPart, i int) int {
	var m seen
	return s.structElem(i, func(key []byte, j int) int {
		if b := index(gemPartNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "text":
			return s.stringPtr(j, &p.Text)
		case "thought":
			return s.boolValue(j, &p.Thought)
		case "functionCall":
			fc, fm := new(gemCall), seen(0)
			end := s.objectPtr(j, func() { fc = nil }, func(k []byte, l int) int {
				if b := index(gemCallNames, k); b >= 0 && !s.once(&fm, b) {
					return -1
				}
				switch string(k) {
				case "id":
					return s.stringValue(l, &fc.ID)
				case "name":
					return s.stringValue(l, &fc.Name)
				case "args":
					return s.raw(l, (*[]byte)(&fc.Args))
				case "partialArgs":
					return s.sliceOf(l, func() { fc.PartialArgs = nil }, func() { fc.PartialArgs = []gemPartial{} }, func(e int) int {
						fc.PartialArgs = append(fc.PartialArgs, gemPartial{})
						return s.gemPartial(&fc.PartialArgs[len(fc.PartialArgs)-1], e)
					})
				case "willContinue":
					return s.boolValue(l, &fc.WillContinue)
				}
				return s.other(k, l, gemCallNames)
			})
			p.FunctionCall = fc
			return end
		}
		return s.other(key, j, gemPartNames)
	})
}

func (s *scanner) gemPartial(pa *gemPartial, i int) int {
	var m seen
	return s.structElem(i, func(key []byte, j int) int {
		if b := index(gemPartialNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "jsonPath":
			return s.stringValue(j, &pa.JSONPath)
		case "stringValue":
			return s.stringPtr(j, &pa.StringValue)
		case "numberValue":
			return s.raw(j, (*[]byte)(&pa.NumberValue))
		case "boolValue":
			if s.b[j] == 'n' {
				pa.BoolValue = nil
				return s.literal(j, "null")
			}
			v := new(bool)
			end := s.boolValue(j, v)
			pa.BoolValue = v
			return end
		case "nullValue":
			return s.raw(j, (*[]byte)(&pa.NullValue))
		case "willContinue":
			return s.boolValue(j, &pa.WillContinue)
		}
		return s.other(key, j, gemPartialNames)
	})
}
