package toolsel_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolstream/toolstream/internal/toolsel"
	"github.com/toolstream/toolstream/registry"
)

// BenchmarkSelect is what picking a run's tools costs per round, from the
// tools (select) and from an index built once (indexed), against
// exporting them: go test -run '^$' -bench . ./toolsel/
func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		var sb strings.Builder
		sb.WriteString("tools:\n")
		for i := range n {
			fmt.Fprintf(&sb, "  - name: tool_%04d\n    description: Looks up record kind %d in the warehouse and returns its stock.\n    input_schema: {type: object, properties: {sku_%d: {type: string, description: the product code}, warehouse: {type: string}}}\n", i, i, i)
		}
		r, err := registry.Parse([]byte(sb.String()))
		if err != nil {
			b.Fatal(err)
		}
		tools := toolsel.Allowed(r, "")
		query := "How many units of record kind 1234 are in stock in the Shanghai warehouse? Please check sku_1234."
		b.Run(fmt.Sprintf("select/%d", n), func(b *testing.B) {
			for b.Loop() {
				toolsel.Select(tools, query, toolsel.ToolsMax)
			}
		})
		ix := toolsel.NewIndex(tools)
		b.Run(fmt.Sprintf("indexed/%d", n), func(b *testing.B) {
			for b.Loop() {
				ix.Select(query, toolsel.ToolsMax)
			}
		})
		b.Run(fmt.Sprintf("export/%d", n), func(b *testing.B) {
			sel := toolsel.Select(tools, query, toolsel.ToolsMax)
			for b.Loop() {
				toolsel.Export(toolsel.FormatOpenAIChat, sel)
			}
		})
	}
}
