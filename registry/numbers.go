package registry

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// JSON numbers are decoded as they are written (json.Number) and the
// schema library turns each it compares into a big.Rat: 1e-999999 costs a
// tenth of a second to build and 1e-99999999 crashes it. So every number of
// a tools file, of a call's arguments and of a tool's result must be short
// and of a sane magnitude, or it is refused before any schema sees it.
const (
	// NumberBytesMax bounds the text of one JSON number.
	NumberBytesMax = 100
	// ExponentMax bounds the exponent of one JSON number (float64 ends at
	// about 1e308).
	ExponentMax = 400
)

// numberOK reports whether n is within NumberBytesMax and ExponentMax.
func numberOK(n string) bool {
	if len(n) > NumberBytesMax {
		return false
	}
	i := strings.IndexAny(n, "eE")
	if i < 0 {
		return true
	}
	e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
	return err == nil && e >= -ExponentMax && e <= ExponentMax
}

// checkValue walks a decoded JSON value and returns how many values it
// holds (itself included) and what is wrong with it: nesting deeper than
// depthMax (0: any depth) or a number numberOK refuses.
func checkValue(v any, depthMax int) (values int, err error) {
	var walk func(v any, depth int) error
	walk = func(v any, depth int) error {
		values++
		if depthMax > 0 && depth > depthMax {
			return fmt.Errorf("nested deeper than %d levels", depthMax)
		}
		switch v := v.(type) {
		case json.Number:
			if !numberOK(string(v)) {
				return fmt.Errorf("the number %.24s is out of range (at most %d characters, exponent within ±%d)", v, NumberBytesMax, ExponentMax)
			}
		case map[string]any:
			for _, c := range v {
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
		case []any:
			for _, c := range v {
				if err := walk(c, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	err = walk(v, 0)
	return values, err
}
