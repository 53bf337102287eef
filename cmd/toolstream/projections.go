package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/toolstream/toolstream/projector"
	"github.com/toolstream/toolstream/responses"
)

// deps are what projections may need from the process.
type deps struct {
	g *globals
}

// projectionFactories builds a fresh instance of each projection by name.
// Replay needs fresh instances; serve builds one of each it runs.
var projectionFactories = map[string]func(d *deps) (projector.Projection, error){
	responses.Name: func(*deps) (projector.Projection, error) { return responses.Projection{}, nil },
}

func projectionNames() []string {
	var names []string
	for n := range projectionFactories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func newProjection(name string, d *deps) (projector.Projection, error) {
	f, ok := projectionFactories[name]
	if !ok {
		return nil, fmt.Errorf("unknown projection %q (known: %s)", name, strings.Join(projectionNames(), ", "))
	}
	return f(d)
}
