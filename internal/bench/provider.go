package bench

import (
	"bytes"
	"fmt"
	"strconv"
)

// ProviderStream returns an OpenAI Responses stream as a producer records
// it (JSON lines, one raw provider event each): responses responses, each
// with calls function calls of deltas argument deltas (after an opening
// one) and a short final text, the shape of an agent's turn. Response ids
// start with prefix. The events carry the fields real ones do (sequence
// numbers, obfuscation, the response object), so that reading and
// normalising them costs what it costs with a provider.
func ProviderStream(prefix string, responses, calls, deltas int) []byte {
	var b bytes.Buffer
	seq := 0
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
		seq++
	}
	const obf = `"obfuscation":"nWru1sTmaAzi9O"`
	words := []string{"San", " Francisco", ", CA", " and", " Boston", ", MA", " in", " Celsius", ", today"}
	for r := range responses {
		resp := prefix + "_resp_" + strconv.Itoa(r)
		object := func(status string) string {
			return fmt.Sprintf(`{"id":%q,"object":"response","created_at":1770803615,"status":%q,"background":false,"error":null,`+
				`"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-5.1","output":[],`+
				`"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":"none","summary":null},`+
				`"store":true,"temperature":1.0,"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto",`+
				`"tools":[{"type":"function","description":"Current weather for a location","name":"weather","parameters":`+
				`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"strict":false}],`+
				`"top_p":1.0,"truncation":"disabled","usage":null,"user":null,"metadata":{}}`, resp, status)
		}
		seq = 0
		line(`{"type":"response.created","sequence_number":%d,"response":%s}`, seq, object("in_progress"))
		line(`{"type":"response.in_progress","sequence_number":%d,"response":%s}`, seq, object("in_progress"))
		for c := range calls {
			item, call := fmt.Sprintf("fc_%s_%d", resp, c), fmt.Sprintf("call_%s_%d", resp, c)
			line(`{"type":"response.output_item.added","sequence_number":%d,"output_index":%d,"item":{"id":%q,"type":"function_call","status":"in_progress","arguments":"","call_id":%q,"name":"weather"}}`, seq, c, item, call)
			args := `{"location":"`
			line(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":%q,"output_index":%d,"delta":%q,%s}`, seq, item, c, args, obf)
			for d := range deltas {
				w := words[d%len(words)]
				args += w
				line(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":%q,"output_index":%d,"delta":%q,%s}`, seq, item, c, w, obf)
			}
			args += `"}`
			line(`{"type":"response.function_call_arguments.delta","sequence_number":%d,"item_id":%q,"output_index":%d,"delta":"\"}",%s}`, seq, item, c, obf)
			line(`{"type":"response.function_call_arguments.done","sequence_number":%d,"item_id":%q,"output_index":%d,"arguments":%q}`, seq, item, c, args)
			line(`{"type":"response.output_item.done","sequence_number":%d,"output_index":%d,"item":{"id":%q,"type":"function_call","status":"completed","arguments":%q,"call_id":%q,"name":"weather"}}`, seq, c, item, args, call)
		}
		msg, text := "msg_"+resp, ""
		line(`{"type":"response.output_item.added","sequence_number":%d,"output_index":%d,"item":{"id":%q,"type":"message","status":"in_progress","content":[],"role":"assistant"}}`, seq, calls, msg)
		line(`{"type":"response.content_part.added","sequence_number":%d,"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""}}`, seq, msg, calls)
		for _, w := range []string{"It is", " 18 °C", " in San Francisco", " and 11 °C", " in Boston."} {
			text += w
			line(`{"type":"response.output_text.delta","sequence_number":%d,"item_id":%q,"output_index":%d,"content_index":0,"delta":%q,"logprobs":[],%s}`, seq, msg, calls, w, obf)
		}
		line(`{"type":"response.output_text.done","sequence_number":%d,"item_id":%q,"output_index":%d,"content_index":0,"text":%q,"logprobs":[]}`, seq, msg, calls, text)
		line(`{"type":"response.content_part.done","sequence_number":%d,"item_id":%q,"output_index":%d,"content_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":%q}}`, seq, msg, calls, text)
		line(`{"type":"response.output_item.done","sequence_number":%d,"output_index":%d,"item":{"id":%q,"type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":%q}],"role":"assistant"}}`, seq, calls, msg, text)
		line(`{"type":"response.completed","sequence_number":%d,"response":%s}`, seq, object("completed"))
	}
	return b.Bytes()
}
