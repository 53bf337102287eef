package ingest

import (
	"slices"

	"github.com/toolstream/toolstream/events"
)

// Output items of the OpenAI Responses API: function calls, custom tool calls
// (free-text input wrapped as {"input": …}), provider-run tools. The rules
// are in responses.go.

// The output item types the adapter tells apart (respKind); every other
// type is an ItemOther.
var (
	respServerToolTypes = []string{"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call",
		"mcp_call", "mcp_list_tools", "tool_search_call", "web_fetch_call"}
	respItemTypes = append([]string{"function_call", "custom_tool_call", "message", "reasoning"}, respServerToolTypes...)
)

// respKind classifies a Responses output item type.
func respKind(typ string) (kind events.ItemType, custom, tracked bool) {
	switch typ {
	case "function_call":
		return events.ItemFunctionCall, false, true
	case "custom_tool_call":
		return events.ItemFunctionCall, true, true
	case "message", "reasoning", "":
		return "", false, false
	}
	if slices.Contains(respServerToolTypes, typ) {
		return events.ItemServerTool, false, true
	}
	return events.ItemOther, false, true
}

// respFind returns the item an event refers to by item id, else by output
// index, or -1.
func (n *Normalizer) respFind(itemID string, idx int) int {
	if itemID != "" {
		if j := n.findKey(itemID); j >= 0 {
			return j
		}
	}
	if idx < 0 {
		return -1
	}
	items := n.st.R.Items
	for i := len(items) - 1; i >= 0; i-- {
		if !items[i].Tag && items[i].Index == idx {
			return i
		}
	}
	return -1
}

// respOpen remembers a new item and emits its OutputItemAdded.
func (n *Normalizer) respOpen(itemID string, idx int, kind events.ItemType, custom bool, name, callID string) int {
	key := itemID
	if key == "" {
		key = "out" + itoa(idx)
	}
	j := n.addItem(item{ID: n.uniqueID(key), Key: key, CallID: callID, Name: name, Type: kind,
		Index: idx, Open: true, Custom: custom})
	it := &n.st.R.Items[j]
	n.emitItem(it, &events.OutputItemAdded{Type: kind, Index: idx, Name: name})
	return j
}

func (n *Normalizer) respAdded(idx int, ri *respItem) {
	kind, custom, tracked := respKind(ri.Type)
	if !tracked {
		return
	}
	if ri.ID != "" && n.findKey(ri.ID) >= 0 {
		return // repeated added
	}
	name := ri.Name
	if kind != events.ItemFunctionCall && name == "" {
		name = ri.Type
	}
	if kind == events.ItemFunctionCall && !custom && ri.Arguments != nil && *ri.Arguments != "" {
		key := ri.ID
		if key == "" {
			key = "out" + itoa(idx)
		}
		j := n.addItem(item{ID: n.uniqueID(key), Key: key, CallID: ri.CallID, Name: name, Type: kind, Index: idx, Open: true})
		n.emitItem(&n.st.R.Items[j], &events.OutputItemAdded{Type: kind, Index: idx, Name: name,
			Arguments: *ri.Arguments, HasArguments: true})
		return
	}
	j := n.respOpen(ri.ID, idx, kind, custom, name, ri.CallID)
	if custom && ri.Input != nil && *ri.Input != "" {
		n.customDelta(j, *ri.Input)
	}
}

func (n *Normalizer) respArgsDelta(itemID string, idx int, delta string) {
	j := n.respFind(itemID, idx)
	if j < 0 {
		j = n.respOpen(itemID, idx, events.ItemFunctionCall, false, "", "")
	}
	it := &n.st.R.Items[j]
	if it.Type != events.ItemFunctionCall || it.Custom || !it.Open || it.Pending || delta == "" {
		return
	}
	it.Deltas = true
	n.emitItem(it, &events.ArgumentsDelta{Delta: delta})
}

func (n *Normalizer) respArgsDone(itemID string, idx int, name string, args *string) {
	j := n.respFind(itemID, idx)
	if j < 0 {
		j = n.respOpen(itemID, idx, events.ItemFunctionCall, false, name, "")
	}
	it := &n.st.R.Items[j]
	if it.Type != events.ItemFunctionCall || it.Custom || !it.Open || it.Pending {
		return
	}
	if it.Name == "" && name != "" {
		it.Name = name
	}
	done := &events.ArgumentsDone{}
	if args != nil {
		done.Arguments, done.HasArguments = *args, true
	}
	if it.Name == "" {
		it.Pending, it.Args, it.HasArgs = true, done.Arguments, done.HasArguments
		return
	}
	it.Open = false
	n.emitItem(it, done)
}

func (n *Normalizer) customDelta(j int, s string) {
	it := &n.st.R.Items[j]
	if !it.Custom || !it.Open || it.Pending || s == "" {
		return
	}
	b := make([]byte, 0, len(s)+12)
	if !it.Deltas {
		b = append(b, `{"input":"`...)
		it.Deltas = true
	}
	b = appendEscaped(b, s)
	n.emitItem(it, &events.ArgumentsDelta{Delta: string(b)})
}

// wrapInput is the arguments object of a custom tool call's free-text input.
func wrapInput(s string) string { return `{"input":` + quoteJSON(s) + `}` }

func (n *Normalizer) respCustomDelta(itemID string, idx int, delta string) {
	j := n.respFind(itemID, idx)
	if j < 0 {
		j = n.respOpen(itemID, idx, events.ItemFunctionCall, true, "", "")
	}
	n.customDelta(j, delta)
}

func (n *Normalizer) respCustomDone(itemID string, idx int, input *string) {
	j := n.respFind(itemID, idx)
	if j < 0 {
		j = n.respOpen(itemID, idx, events.ItemFunctionCall, true, "", "")
	}
	it := &n.st.R.Items[j]
	if !it.Custom || !it.Open || it.Pending {
		return
	}
	n.closeCustomDeltas(it)
	done := &events.ArgumentsDone{}
	if input != nil {
		done.Arguments, done.HasArguments = wrapInput(*input), true
	}
	if it.Name == "" {
		it.Pending, it.Args, it.HasArgs = true, done.Arguments, done.HasArguments
		return
	}
	it.Open = false
	n.emitItem(it, done)
}

// closeCustomDeltas ends the {"input":" wrapper the deltas opened, so that the
// concatenated deltas are the same object as the done event's arguments.
func (n *Normalizer) closeCustomDeltas(it *item) {
	if it.Custom && it.Deltas && it.Open && !it.Pending {
		n.emitItem(it, &events.ArgumentsDelta{Delta: `"}`})
	}
}

func (n *Normalizer) respItemDone(idx int, ri *respItem) {
	kind, custom, tracked := respKind(ri.Type)
	if !tracked {
		if ri.Type == "message" {
			key := ri.ID
			if key == "" {
				key = "out" + itoa(idx)
			}
			n.endScan(key)
		}
		return
	}
	j := n.respFind(ri.ID, idx)
	if j < 0 {
		name := ri.Name
		if kind != events.ItemFunctionCall && name == "" {
			name = ri.Type
		}
		j = n.respOpen(ri.ID, idx, kind, custom, name, ri.CallID)
	}
	it := &n.st.R.Items[j]
	if it.CallID == "" {
		it.CallID = ri.CallID
	}
	if kind != events.ItemFunctionCall {
		if it.Open {
			it.Open = false
			n.emitItem(it, &events.OutputItemDone{Type: kind, Status: ri.Status})
		}
		return
	}
	if ri.Status != "" && ri.Status != "completed" {
		return // not complete: the response's end decides
	}
	if it.Name == "" {
		it.Name = ri.Name
	}
	done := &events.OutputItemDone{Type: kind, Name: it.Name, Status: ri.Status}
	switch {
	case custom && ri.Input != nil:
		done.Arguments, done.HasArguments = wrapInput(*ri.Input), true
	case !custom && ri.Arguments != nil:
		done.Arguments, done.HasArguments = *ri.Arguments, true
	case it.Pending:
		done.Arguments, done.HasArguments = it.Args, it.HasArgs
	}
	n.closeCustomDeltas(it)
	it.Open, it.Pending = false, false
	n.emitItem(it, done)
}
