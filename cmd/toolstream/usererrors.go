package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// pkgPrefix matches the package prefixes our errors carry (client:,
// toolsel:, nats:, …) where a message or a wrapped message starts: useful
// to a programmer reading a log, noise to a user reading one line.
var pkgPrefix = regexp.MustCompile(`(^|: |\()(?:client|bus|stack|toolsel|registry|ingest|keys|logread|auth|memory|events|erasure|trace|runs|viewdump|projector|node|nats|jetstream|strconv\.Parse[A-Za-z]+): `)

// servicePrefix matches a service request's subject and status code in a
// wrapped error ("tsv.memory.history: 404 "): what was asked is said by the
// rest of the message.
var servicePrefix = regexp.MustCompile(`(^|: )tsv\.[A-Za-z0-9_.-]+: \d{3} `)

// userMessage is err as the one line a user reads: without package
// prefixes or a service's subject and code, and without a repeated segment
// the wrapping left ("not found: not found").
func userMessage(err error) string {
	msg := servicePrefix.ReplaceAllString(err.Error(), "$1")
	for {
		next := pkgPrefix.ReplaceAllString(msg, "$1")
		if next == msg {
			break
		}
		msg = next
	}
	parts := strings.Split(msg, ": ")
	out := parts[:0]
	for i, p := range parts {
		if i > 0 && p == parts[i-1] {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// flagValue matches pflag's error for a value it cannot parse.
var flagValue = regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (.*)$`)

// flagError says what a flag wants instead of the parser that refused
// its value (strconv.ParseBool: parsing "yes": invalid syntax), and points
// at --help for an unknown flag; exit code 4.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if m := flagValue.FindStringSubmatch(msg); m != nil {
		value, flag, why := m[1], m[2], m[3]
		if i := strings.LastIndex(flag, "--"); i >= 0 {
			flag = flag[i:] // "-k, --k" → "--k"
		}
		switch {
		case strings.Contains(why, "ParseBool"):
			why = "want true or false"
		case strings.Contains(why, "ParseInt"), strings.Contains(why, "ParseUint"):
			why = "want a whole number"
		case strings.Contains(why, "ParseFloat"):
			why = "want a number"
		case strings.HasPrefix(why, "time: "):
			why = "want a duration such as 30s, 2m or 72h"
		}
		return &exitError{exitBadInput, fmt.Errorf("%s %q: %s", flag, value, why)}
	}
	if a := cmd.Flags().Args(); len(a) > 0 && cmd.Annotations[groupAnnotation] != "" {
		// "memory mesage --tenant acme": the flag is the subcommand's, the
		// mistake is the subcommand's name.
		return unknownCommand(cmd, a[0])
	}
	if strings.HasPrefix(msg, "unknown flag") || strings.HasPrefix(msg, "unknown shorthand flag") {
		if s := flagSuggestions(cmd, msg); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return &exitError{exitBadInput, fmt.Errorf("%s (%s --help lists its flags)", msg, cmd.CommandPath())}
	}
	return &exitError{exitBadInput, errors.New(msg)}
}

// cobraUnknown matches cobra's error for a command it cannot find, or an
// argument to a command that takes none.
var cobraUnknown = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)

// cobraArgs matches cobra's errors for a number of arguments a command
// does not take (cobra.ExactArgs, MinimumNArgs, MaximumNArgs, RangeArgs).
var cobraArgs = regexp.MustCompile(`^(?:accepts|requires) .*arg\(s\), (?:only )?received \d+$`)

// cobraRequired matches cobra's error for a required flag left out
// (history --run, replay --projection, verify --answer): it exited 1.
var cobraRequired = regexp.MustCompile(`^required flag\(s\) .* not set$`)

// commandError turns cobra's "unknown command", its wrong number of
// arguments and its required flags left out into bad input (exit code 4)
// that says what to do; any other error is returned as it is.
func commandError(cmd *cobra.Command, err error) error {
	var ee *exitError
	if err == nil || cmd == nil || errors.As(err, &ee) {
		return err
	}
	if cobraArgs.MatchString(err.Error()) || cobraRequired.MatchString(err.Error()) {
		return &exitError{exitBadInput, fmt.Errorf("%s %s (usage: %s)", cmd.CommandPath(), err, cmd.UseLine())}
	}
	m := cobraUnknown.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	return unknownCommand(cmd, m[1])
}

// unknownCommand is bad input naming arg, which cmd has no command of:
// its closest commands, if any, and where the commands are listed.
func unknownCommand(cmd *cobra.Command, arg string) error {
	if !cmd.HasSubCommands() {
		return &exitError{exitBadInput, fmt.Errorf("%s takes no argument %q (%s --help lists its flags)", cmd.CommandPath(), arg, cmd.CommandPath())}
	}
	msg := fmt.Sprintf("unknown command %q for %s", arg, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, set only on its path
	}
	if s := cmd.SuggestionsFor(arg); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &exitError{exitBadInput, fmt.Errorf("%s (%s --help lists its commands)", msg, cmd.CommandPath())}
}

// pflagUnknown matches pflag's errors for a flag it does not know: a long
// one ("unknown flag: --tenent") or a word given one dash, read as
// shorthands ("unknown shorthand flag: 't' in -tenant").
var pflagUnknown = regexp.MustCompile(`^unknown (?:flag: --([^ ]+)|shorthand flag: '.' in -([^ ]+))$`)

// flagSuggestions are cmd's flags nearest to the unknown one msg names
// (cobra suggests commands, never flags): a word given one dash that is
// a flag's name, else the flags that start with what was typed or are
// the fewest edits from it (at most one edit in three letters, and two).
func flagSuggestions(cmd *cobra.Command, msg string) []string {
	m := pflagUnknown.FindStringSubmatch(msg)
	if m == nil {
		return nil
	}
	typed, oneDash := m[1], m[2] != ""
	if oneDash {
		typed, _, _ = strings.Cut(m[2], "=")
	}
	best := min(2, max(1, len(typed)/3)) + 1
	var out []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(typed, f.Name)
		switch {
		case oneDash && d == 0:
		case oneDash:
			return // -x mistyped as a shorthand is not a long flag's typo
		case len(typed) >= 3 && strings.HasPrefix(f.Name, typed):
			d = 1
		}
		if d < best {
			best, out = d, out[:0]
		}
		if d == best {
			out = append(out, "--"+f.Name)
		}
	})
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
