package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolstream/toolstream/internal/stack"
	"github.com/toolstream/toolstream/memory"
)

// The memory commands print for people by default: times in RFC 3339
// (UTC), scores and confidences to three significant digits, one record a
// line. --json prints the memory service's answer as it is (nanosecond
// times, full scores).

// when is an event time in nanoseconds for people; 0 is "-".
func when(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return time.Unix(0, ns).UTC().Format(time.RFC3339)
}

// whenText is an RFC 3339 time of the memory service's answer (in
// nanoseconds: review_at) for people, as when prints a time: to the second.
// A text that is no such time is printed as it is.
func whenText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339)
}

// sig3 is x to three significant digits, never in exponent form.
func sig3(x float64) string {
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if strings.ContainsAny(s, "e") {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return s
}

// slot is a record's subject.attribute=value, or "-".
func slot(r memory.Record) string {
	if r.Subject == "" && r.Attribute == "" {
		return "-"
	}
	s := r.Subject + "." + r.Attribute
	if r.Value != "" {
		s += "=" + r.Value
	}
	if r.Polarity == memory.Negative {
		s = "not " + s
	}
	return s
}

// printMemory prints the memory service's answer data to verb (on
// record id, if it names one) for people.
func printMemory(w io.Writer, verb, id string, data []byte) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	switch verb {
	case "list", "history":
		var rs []memory.Record
		if err := json.Unmarshal(data, &rs); err != nil {
			return err
		}
		if len(rs) == 0 {
			_, err := fmt.Fprintln(w, "no records")
			return err
		}
		fmt.Fprintln(tw, "ID\tVERSION\tKIND\tSTATUS\tSLOT\tCONFIDENCE\tOBSERVED\tVALID UNTIL\tTEXT")
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Version, r.Kind, r.Status, slot(r), sig3(r.Confidence),
				when(r.ObservedAt), when(r.ValidUntil), r.Text)
		}
	case "recall":
		var out memory.RecallOut
		if err := json.Unmarshal(data, &out); err != nil {
			return err
		}
		if out.Error != "" {
			return fmt.Errorf("recall: %s", out.Error)
		}
		if len(out.Results) == 0 && len(out.Conflicts) == 0 {
			_, err := fmt.Fprintln(w, "no memories")
			return err
		}
		fmt.Fprintln(tw, "SCORE\tID\tVERSION\tKIND\tSTATUS\tTEXT")
		for _, h := range out.Results {
			status := h.Status
			if h.ReviewAt != "" { // open-ended: to be confirmed from then on
				status += ", review from " + whenText(h.ReviewAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", sig3(h.Score), h.ID, h.Version, h.Kind, status, h.Text)
		}
		for _, h := range out.Conflicts {
			status := h.Status
			if h.ReviewAt != "" {
				status += " since " + whenText(h.ReviewAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", "-", h.ID, h.Version, h.Kind, status, h.Text)
		}
	default: // message, observe, correct
		var rep memory.WriteReply
		if err := json.Unmarshal(data, &rep); err != nil {
			return err
		}
		if rep.Rejected != "" {
			return badInput("memory %s: rejected: %s", verb, rep.Rejected)
		}
		if verb == "message" {
			fmt.Fprintf(tw, "message %s: %d record(s)\n", rep.ID, len(rep.Records))
			for _, r := range rep.Records {
				state := "written"
				if r.Rejected != "" {
					state = "rejected: " + r.Rejected
				}
				fmt.Fprintf(tw, "  %s\t%s\n", r.ID, state)
			}
		} else {
			fmt.Fprintf(tw, "%s %s (log seq %d)\n", map[string]string{"observe": "observed", "correct": "corrected"}[verb], id, rep.Seq)
		}
		if rep.EmbedError != "" {
			fmt.Fprintf(tw, "no vector for semantic recall: %s\n", rep.EmbedError)
		}
	}
	return tw.Flush()
}

// printForgotten prints what memory forget did for people.
func printForgotten(w io.Writer, id string, f *stack.Forgotten) error {
	fmt.Fprintf(w, "forgot %s: %d record(s) erased (%s), %d data key(s) destroyed\n", id, len(f.Erase), strings.Join(f.Erase, ", "), f.Keys)
	if f.NotConfirmed {
		fmt.Fprintln(w, "the memory view has not confirmed its rebuild yet (serve's memory projection applies the erasure when it catches up)")
	}
	return nil
}
