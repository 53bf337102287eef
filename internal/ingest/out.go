package ingest

import (
	"strconv"
	"strings"

	"github.com/toolstream/toolstream/events"
)

// String returns o in a canonical one-line text form, used by the tests and
// handy in logs and CLIs:
//
//	<kind> r=<response> [i=<item>] [c=<call id>] <body fields>
//
// where kind is the events kind without its "model." prefix, and body fields
// appear in a fixed order, strings quoted, empty ones left out (arguments are
// shown, possibly empty, exactly when HasArguments is set).
func (o Out) String() string {
	var b strings.Builder
	kind := "nil"
	if o.Body != nil {
		kind = strings.TrimPrefix(string(o.Body.Kind()), "model.")
	}
	b.WriteString(kind)
	b.WriteString(" r=")
	b.WriteString(o.Response)
	if o.Item != "" {
		b.WriteString(" i=")
		b.WriteString(o.Item)
	}
	if o.CallID != "" {
		b.WriteString(" c=")
		b.WriteString(o.CallID)
	}
	f := func(name, v string) {
		if v != "" {
			b.WriteString(" " + name + "=" + strconv.Quote(v))
		}
	}
	args := func(has bool, v string) {
		if has {
			b.WriteString(" args=" + strconv.Quote(v))
		}
	}
	switch x := o.Body.(type) {
	case *events.ResponseStarted:
		f("provider", x.Provider)
		f("model", x.Model)
	case *events.OutputItemAdded:
		b.WriteString(" type=" + string(x.Type) + " index=" + strconv.Itoa(x.Index))
		f("name", x.Name)
		args(x.HasArguments, x.Arguments)
	case *events.ArgumentsDelta:
		b.WriteString(" delta=" + strconv.Quote(x.Delta))
	case *events.ArgumentsDone:
		args(x.HasArguments, x.Arguments)
	case *events.OutputItemDone:
		if x.Type != "" {
			b.WriteString(" type=" + string(x.Type))
		}
		f("name", x.Name)
		args(x.HasArguments, x.Arguments)
		f("status", x.Status)
	case *events.ItemAborted:
		b.WriteString(" reason=" + string(x.Reason))
		f("detail", x.Detail)
	case *events.TextDelta:
		b.WriteString(" index=" + strconv.Itoa(x.Index) + " text=" + strconv.Quote(x.Text))
	case *events.ResponseCompleted:
		f("stop", x.StopReason)
		usage(&b, x.Usage)
	case *events.ResponseIncomplete:
		b.WriteString(" reason=" + string(x.Reason))
		f("stop", x.StopReason)
		usage(&b, x.Usage)
	case *events.ResponseFailed:
		f("code", x.Code)
		f("message", x.Message)
		usage(&b, x.Usage)
	}
	return b.String()
}

// usage writes the tokens a terminal event carries.
func usage(b *strings.Builder, u events.Usage) {
	if u != (events.Usage{}) {
		b.WriteString(" usage=" + strconv.FormatInt(u.Input, 10) + "/" + strconv.FormatInt(u.Output, 10))
	}
}
