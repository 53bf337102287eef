package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// buildVersion is what `toolstream version` prints: the module's version
// (a tag when installed with go install …@vX, "(devel)" from a checkout),
// the VCS revision and time the binary was built from, whether the tree
// had changes, and the Go version.
type buildVersion struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// versionOf reads bi (debug.ReadBuildInfo's); a binary built without
// module support (ok false) says so rather than guessing.
func versionOf(bi *debug.BuildInfo, ok bool) buildVersion {
	if !ok || bi == nil {
		return buildVersion{Version: "unknown (built without module information)", Go: "unknown"}
	}
	v := buildVersion{Module: bi.Main.Path, Version: bi.Main.Version, Go: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (v buildVersion) String() string {
	s := fmt.Sprintf("toolstream %s", v.Version)
	if v.Module != "" {
		s += " (" + v.Module + ")"
	}
	switch {
	case v.Revision == "":
		s += "\nrevision unknown (built outside a git checkout, or with -buildvcs=false)"
	default:
		s += "\nrevision " + v.Revision
		if v.Time != "" {
			s += " of " + v.Time
		}
		if v.Modified {
			s += ", with uncommitted changes"
		}
	}
	return s + "\n" + v.Go + "\n"
}

func versionCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the version: the module's, the VCS revision it was built from, the Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := versionOf(debug.ReadBuildInfo())
			if asJSON {
				return json.NewEncoder(g.stdout).Encode(v)
			}
			_, err := fmt.Fprint(g.stdout, v)
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print it as one JSON object")
	return cmd
}
