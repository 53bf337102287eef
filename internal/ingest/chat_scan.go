package ingest

// The Chat Completions adapter's fields, read by the scanner (jsonscan.go)
// in one pass: what decodeChat's encoding/json decode reads, with the same
// result wherever the scanner answers.

var (
	chatChunkNames    = []string{"id", "object", "model", "choices", "error", "usage"}
	chatChoiceNames   = []string{"index", "delta", "message", "finish_reason"}
	chatDeltaNames    = []string{"content", "tool_calls", "function_call"}
	chatToolCallNames = []string{"index", "id", "function"}
	chatFunctionNames = []string{"name", "arguments"}
)

// scanChat decodes raw as decodeChat does; ok false leaves the event to
// encoding/json.
func scanChat(raw []byte) (c *chatChunk, ok bool) {
	c, ok, _ = scanChatChecked(raw)
	return c, ok
}

// scanChatChecked is scanChat, and says when a key of the chunk is a
// misspelling of a field the adapter reads (scanner.other).
func scanChatChecked(raw []byte) (c *chatChunk, ok bool, bad error) {
	s := &scanner{b: raw, spell: true}
	c = new(chatChunk)
	var m seen
	ok = s.top(func(key []byte, i int) int {
		if b := index(chatChunkNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "id":
			return s.stringValue(i, &c.ID)
		case "object":
			return s.stringValue(i, &c.Object)
		case "model":
			return s.stringValue(i, &c.Model)
		case "choices":
			if s.b[i] == 'n' {
				c.Choices = nil
				return s.literal(i, "null")
			}
			var chs []chatChoice
			end := s.arrayOf(i, func(j int) int {
				chs = append(chs, chatChoice{})
				return s.chatChoice(&chs[len(chs)-1], j)
			})
			if chs == nil {
				chs = []chatChoice{}
			}
			c.Choices = &chs
			return end
		case "error":
			return s.raw(i, (*[]byte)(&c.Error))
		case "usage":
			return s.raw(i, (*[]byte)(&c.Usage))
		}
		return s.other(key, i, chatChunkNames)
	})
	return c, ok && !s.fail, s.misspelt
}

// arrayOf reads an array field element by element (elem reads the element
// at its index and returns the index after it); anything but an array
// gives up.
func (s *scanner) arrayOf(i int, elem func(i int) int) int {
	if s.b[i] != '[' {
		return s.giveUp()
	}
	if s.depth++; s.depth > scanDepthMax {
		return s.giveUp()
	}
	defer func() { s.depth-- }()
	i, done := s.first(i, ']')
	for !done {
		if i >= len(s.b) {
			return s.giveUp()
		}
		if i = elem(i); i < 0 || s.fail {
			return s.giveUp()
		}
		i, done = s.next(i, ']')
	}
	return i
}

// structElem reads an array element of struct type: null leaves it as it
// is (zero), an object is read by field, anything else gives up.
func (s *scanner) structElem(i int, field func(key []byte, i int) int) int {
	switch s.b[i] {
	case 'n':
		return s.literal(i, "null")
	case '{':
		return s.object(i, field)
	}
	return s.giveUp()
}

func (s *scanner) chatChoice(ch *chatChoice, i int) int {
	var m seen
	return s.structElem(i, func(key []byte, j int) int {
		if b := index(chatChoiceNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "index":
			return s.intPtr(j, &ch.Index)
		case "delta":
			return s.chatDeltaPtr(j, &ch.Delta)
		case "message":
			return s.chatDeltaPtr(j, &ch.Message)
		case "finish_reason":
			return s.stringPtr(j, &ch.FinishReason)
		}
		return s.other(key, j, chatChoiceNames)
	})
}

func (s *scanner) chatDeltaPtr(i int, dst **chatDelta) int {
	d := new(chatDelta)
	var m seen
	end := s.objectPtr(i, func() { d = nil }, func(key []byte, j int) int {
		if b := index(chatDeltaNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "content":
			return s.raw(j, (*[]byte)(&d.Content))
		case "tool_calls":
			if s.b[j] == 'n' {
				d.ToolCalls = nil
				return s.literal(j, "null")
			}
			end := s.arrayOf(j, func(k int) int {
				d.ToolCalls = append(d.ToolCalls, chatToolCall{})
				return s.chatToolCall(&d.ToolCalls[len(d.ToolCalls)-1], k)
			})
			if d.ToolCalls == nil {
				d.ToolCalls = []chatToolCall{}
			}
			return end
		case "function_call":
			return s.chatFunctionPtr(j, &d.FunctionCall)
		}
		return s.other(key, j, chatDeltaNames)
	})
	*dst = d
	return end
}

func (s *scanner) chatToolCall(tc *chatToolCall, i int) int {
	var m seen
	return s.structElem(i, func(key []byte, j int) int {
		if b := index(chatToolCallNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "index":
			return s.intPtr(j, &tc.Index)
		case "id":
			return s.stringPtr(j, &tc.ID)
		case "function":
			return s.chatFunctionPtr(j, &tc.Function)
		}
		return s.other(key, j, chatToolCallNames)
	})
}

func (s *scanner) chatFunctionPtr(i int, dst **chatFunction) int {
	f := new(chatFunction)
	var m seen
	end := s.objectPtr(i, func() { f = nil }, func(key []byte, j int) int {
		if b := index(chatFunctionNames, key); b >= 0 && !s.once(&m, b) {
			return -1
		}
		switch string(key) {
		case "name":
			return s.stringPtr(j, &f.Name)
		case "arguments":
			return s.raw(j, (*[]byte)(&f.Arguments))
		}
		return s.other(key, j, chatFunctionNames)
	})
	*dst = f
	return end
}
