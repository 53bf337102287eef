package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolstream/toolstream/client"
	"github.com/toolstream/toolstream/internal/auth"
)

// More examples, one for each thing a program does with Toolstream that
// example_test.go does not show; they share its embedded server.

// connectAs is a client of the server as id; it panics when it cannot
// connect (the examples' server is local).
func connectAs(s *server, id auth.Identity) *client.Client {
	c, err := client.Connect(context.Background(), client.WithURL(s.b.ClientURL()), s.as(id))
	if err != nil {
		panic(err)
	}
	return c
}

// withServices runs the memory and runs services on s until it closes.
func withServices(s *server) {
	stop, err := services(s.b, s.dir+"/services")
	if err != nil {
		panic(err)
	}
	s.stop = append(s.stop, stop)
}

// Producing raw: a producer that cannot normalise publishes the
// provider's events as they are, numbered, for the server's ingest to
// normalise. A program that only produces takes the Producer role.
func ExampleWithRaw() {
	s := startServer()
	defer s.close()
	ctx := context.Background()
	c := connectAs(s, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	defer c.Close()

	var p client.Producer = c
	pub, err := p.Publish(ctx, strings.NewReader(sse),
		client.WithStream(client.Stream{Tenant: "acme", ID: "req-2", Format: "openai-chat", User: "ann"}), client.WithRaw())
	fmt.Println(pub.Raw, "raw events;", pub.Model, "messages stored with the end of the stream;", err)
	// Output: 4 raw events; 5 messages stored with the end of the stream; <nil>
}

// Consuming results: an executor ran the call, and its result is read as
// a typed value. A consumer keeps the Seq of the last value it handled and
// resumes after it.
func ExampleClient_Results() {
	s := startServer()
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stop := startToolExecutor(s.b, weatherYAML, "get_weather", `{"temp_c":18}`)
	defer stop()
	produce(s, sse, client.Stream{Tenant: "acme", ID: "req-1", User: "ann"})
	c := connectAs(s, auth.Identity{Role: auth.RoleOperator})
	defer c.Close()

	var last uint64
	for r, err := range c.Results(ctx, "acme", client.Follow()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.Tool, r.OK, string(r.Result), r.Key)
		last = r.Seq
		break
	}
	n := 0
	for range c.Results(ctx, "acme", client.After(last)) {
		n++
	}
	fmt.Println("results after it:", n)
	// Output:
	// get_weather true {"temp_c":18} acme/-/chatcmpl-1/call_1
	// results after it: 0
}

// Consuming a tenant's activity: wait for the response to be closed and
// its call decided, read the latest word on the response by one direct
// get, then the calls and responses as one iteration (each stream in log
// order, one stream after the other).
func ExampleClient_Activity() {
	s := startServer()
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	produce(s, sse, client.Stream{Tenant: "acme", ID: "req-1", User: "ann"})
	c := connectAs(s, auth.Identity{Role: auth.RoleOperator})
	defer c.Close()

	var response string
	for a, err := range c.Activity(ctx, "acme", []client.Kind{client.KindResponses}, client.Follow()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		response = a.Response.Meta.Response
		break
	}
	for _, err := range c.Calls(ctx, "acme", client.Follow()) { // and the call, in a stream of its own
		if err != nil {
			fmt.Println(err)
			return
		}
		break
	}
	var latest client.Latest = c
	closed, err := latest.Closed(ctx, "acme", response)
	fmt.Println("closed:", closed.Status, closed.Calls, "call", err)
	for a, err := range c.Activity(ctx, "acme", []client.Kind{client.KindCalls, client.KindResponses}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(a.Meta().Stream, a.Meta().Kind)
	}
	// Output:
	// closed: completed 1 call <nil>
	// TS_CALLS call.completed
	// TS_OUT call.response_outcome
}

// Deciding: a call that waits for approval is denied with a reason,
// which the model reads as the call's failure.
func ExampleClient_Deny() {
	s := startServer()
	defer s.close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	stop := startExampleExecutor(s.b)
	defer stop()
	wire := strings.NewReplacer("get_weather", "wire", `{\"city\":`, `{\"amount\":`, `\"Paris\"}`, `10}`).Replace(sse)
	produce(s, wire, client.Stream{Tenant: "acme", ID: "req-1", User: "ann", Run: "run-1", Step: "1"})
	c := connectAs(s, auth.Identity{Role: auth.RoleOperator})
	defer c.Close()

	var d client.Decider = c
	for a, err := range d.Approvals(ctx, "acme", client.Follow()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		key, err := d.Deny(ctx, "acme", a.Key, "the amount needs a second look", client.By("bob"))
		fmt.Println("denied", key, err)
		break
	}
	_, err := d.Approve(ctx, "acme", "call_1")
	fmt.Println("approved afterwards:", errors.Is(err, client.ErrAlreadyDecided))
	for r, err := range c.Results(ctx, "acme", client.Follow()) {
		fmt.Println("result:", r.OK, r.Error, err)
		break
	}
	// Output:
	// denied acme/run-1/1/call_1 <nil>
	// approved afterwards: true
	// result: false approval_denied <nil>
}

// Driving a run: whoever drives a run (the driver role's identity, never
// a tenant's producer) holds its lease; another driver is refused until it
// is released.
func ExampleClient_Lease() {
	s := startServer()
	defer s.close()
	withServices(s)
	ctx := context.Background()
	p := connectAs(s, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	defer p.Close()
	c := connectAs(s, auth.Identity{Role: auth.RoleDriver})
	defer c.Close()

	var driver client.RunDriver = c
	if _, err := p.Say(ctx, "acme", "run-1", "ann", "m1", "Book a table for two", ""); err != nil {
		fmt.Println(err)
		return
	}
	a, err := driver.Lease(ctx, "acme", "run-1", "loop-a")
	fmt.Println("loop-a leases, epoch", a.Lease.Epoch, err)
	_, err = driver.Lease(ctx, "acme", "run-1", "loop-b")
	fmt.Println("loop-b refused:", errors.Is(err, client.ErrConflict))
	l, err := driver.Renew(ctx, a.Lease)
	fmt.Println("loop-a renews, epoch", l.Epoch, err)
	fmt.Println("loop-a releases:", driver.Release(ctx, l))
	b, err := driver.Lease(ctx, "acme", "run-1", "loop-b")
	fmt.Println("loop-b leases, epoch", b.Lease.Epoch, err)
	// Output:
	// loop-a leases, epoch 1 <nil>
	// loop-b refused: true
	// loop-a renews, epoch 1 <nil>
	// loop-a releases: <nil>
	// loop-b leases, epoch 2 <nil>
}

// Watching runs: a caller that waits on a run is told when it changes,
// and reads it again then.
func ExampleClient_WatchRuns() {
	s := startServer()
	defer s.close()
	withServices(s)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := connectAs(s, auth.Identity{Role: auth.RoleProducer, Tenant: "acme"})
	defer c.Close()

	var runs client.RunReader = c
	changes, err := runs.WatchRuns(ctx, "acme", client.WatchRun("run-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Say(ctx, "acme", "run-1", "ann", "m1", "What is the weather in Paris?", "openai-chat"); err != nil {
		fmt.Println(err)
		return
	}
	for ch, err := range changes {
		if err != nil {
			fmt.Println(err)
			return
		}
		run, err := runs.Run(ctx, "acme", ch.Run)
		fmt.Println(ch.Run, ch.Kind, run.Status, run.Turns, err)
		break
	}
	// Output: run-1 run.message running 1 <nil>
}

// Memory: a record is corrected from the version the caller read; a
// correction from a version that is no longer current is refused, never
// merged.
func ExampleClient_Correct() {
	s := startServer()
	defer s.close()
	withServices(s)
	ctx := context.Background()
	c := connectAs(s, auth.Identity{Role: auth.RoleOperator})
	defer c.Close()

	var mem client.Memory = c
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	car := client.Observation{ID: "car", Kind: "fact", Subject: "ann", Attribute: "car", Value: "volvo", Text: "Ann drives a Volvo", At: at}
	if _, err := mem.Observe(ctx, "acme", "ann", car); err != nil {
		fmt.Println(err)
		return
	}
	car.Value, car.Text, car.At = "saab", "Ann drives a Saab now", at.Add(24*time.Hour)
	_, err := mem.Correct(ctx, "acme", "ann", 1, car)
	fmt.Println("corrected:", err)
	car.Value, car.Text, car.At = "fiat", "Ann drives a Fiat", at.Add(48*time.Hour)
	_, err = mem.Correct(ctx, "acme", "ann", 1, car)
	fmt.Println("from version 1 again:", errors.Is(err, client.ErrStaleVersion))
	recs, err := mem.Records(ctx, "acme", "ann", false)
	for _, r := range recs {
		fmt.Println(r.ID, r.Version, r.Value, r.Status)
	}
	// Output:
	// corrected: <nil>
	// from version 1 again: true
	// car 2 saab active
}
