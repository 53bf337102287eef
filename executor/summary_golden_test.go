package executor

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateSummaries = flag.Bool("update-summaries", false, "rewrite testdata/summary/*.golden")

// The summaries of large results, golden: each .json file under
// executor/testdata/summary is a tool's result, the .golden file of its
// name its summary under SummaryMax 2048 and 512 (the
// levels shrink: fewer rows, fewer fields described, shorter strings).
// Reviewed like code; rewritten with -update-summaries.
func TestSummaryGolden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "summary", "*.json"))
	if len(files) == 0 {
		t.Fatal("no results in testdata/summary")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			result, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for _, max := range []int{2048, 512} {
				s := summarize(result, "ts_results/acme/k", max)
				if len(s) > max || !json.Valid([]byte(s)) {
					t.Fatalf("max %d: summary of %d bytes, valid %v: %s", max, len(s), json.Valid([]byte(s)), s)
				}
				if again := summarize(result, "ts_results/acme/k", max); again != s {
					t.Fatalf("max %d: two summaries of one result differ:\n%s\n%s", max, s, again)
				}
				var pretty bytes.Buffer
				json.Indent(&pretty, []byte(s), "", "  ")
				got.WriteString("# SummaryMax " + strconv.Itoa(max) + ", " + strconv.Itoa(len(s)) + " bytes\n")
				got.Write(pretty.Bytes())
				got.WriteString("\n")
			}
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *updateSummaries {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (record it with -update-summaries)", err)
			}
			if got.String() != string(want) {
				t.Errorf("summary of %s:\n%s\nwant (%s):\n%s", f, got.String(), golden, want)
			}
		})
	}
}

// The statistics are the data's: min and max are the extreme values as the
// result wrote them, the quartiles values of the data by nearest rank, the
// extremes' rows are named by index beside the first rows, and a string
// field is counted only while it has few distinct values, some repeated.
func TestSummaryStatistics(t *testing.T) {
	var rows []string
	for i := range 40 {
		price := strconv.Itoa(100 + i)
		if i == 29 {
			price = "9e3" // as written
		}
		rows = append(rows, `{"name":"item `+strconv.Itoa(i)+`","price":`+price+`,"kind":"`+[]string{"a", "b"}[i%2]+`"}`)
	}
	s := summarize([]byte("["+strings.Join(rows, ",")+"]"), "", 2048)
	var sum struct {
		Count    int
		Stats    map[string]map[string]json.Number
		Counts   map[string]map[string]int
		Outliers []struct {
			Index int
			Is    string
			Row   map[string]any
		}
		Sample []map[string]any
	}
	if err := json.Unmarshal([]byte(s), &sum); err != nil {
		t.Fatal(err)
	}
	p := sum.Stats["price"]
	if sum.Count != 40 || p["n"] != "40" || p["min"] != "100" || p["max"] != "9e3" || p["p25"] != "109" || p["p50"] != "119" || p["p75"] != "130" {
		t.Errorf("price stats %v (count %d) in %s", p, sum.Count, s)
	}
	if got := sum.Counts["kind"]; got["a"] != 20 || got["b"] != 20 || len(got) != 2 {
		t.Errorf("kind counts %v", got)
	}
	if _, ok := sum.Counts["name"]; ok {
		t.Errorf("forty distinct names counted: %s", s)
	}
	if len(sum.Outliers) != 1 || sum.Outliers[0].Index != 29 || sum.Outliers[0].Is != "max price" || sum.Outliers[0].Row["name"] != "item 29" {
		t.Errorf("outliers %+v, want row 29 as max price (the min, row 0, is in the sample)", sum.Outliers)
	}
}
