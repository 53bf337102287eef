package runs

import (
	"fmt"

	"github.com/toolstream/toolstream/events"
	"github.com/toolstream/toolstream/projector"
	"github.com/vmihailenco/msgpack/v5"
)

func validTenant(tenant string) error {
	if err := events.ValidTenant(tenant); err != nil || tenant == events.SystemTenant {
		return fmt.Errorf("%w: %q", projector.ErrNoTenant, tenant)
	}
	return nil
}

// Get returns one run of a tenant: ErrNotFound, or projector.ErrNoTenant
// for an empty or malformed tenant.
func Get(rd projector.Reader, tenant, run string) (Run, error) {
	if err := validTenant(tenant); err != nil {
		return Run{}, err
	}
	k, err := runKey(tenant, run)
	if err != nil {
		return Run{}, err
	}
	var r Run
	found, err := load(rd, k, &r)
	if err != nil {
		return Run{}, err
	}
	if !found {
		return Run{}, fmt.Errorf("%w: run %q of %s", ErrNotFound, run, tenant)
	}
	return r, nil
}

// List returns a tenant's runs in id order; projector.ErrNoTenant for an
// empty or malformed tenant.
func List(rd projector.Reader, tenant string) ([]Run, error) {
	if err := validTenant(tenant); err != nil {
		return nil, err
	}
	prefix, err := runsPrefix(tenant)
	if err != nil {
		return nil, err
	}
	var out []Run
	err = rd.Scan(prefix, func(k, v []byte) error {
		var r Run
		if err := msgpack.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("runs: corrupt row %q: %w", k, err)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// Turn is one entry of a run's history: an input message or a round.
type Turn struct {
	Input *Input
	Round *Round
}

// Turns returns a run's history entries in order. Errors as Get.
func Turns(rd projector.Reader, tenant, run string) ([]Turn, error) {
	if _, err := Get(rd, tenant, run); err != nil {
		return nil, err
	}
	prefix, err := turnsPrefix(tenant, run)
	if err != nil {
		return nil, err
	}
	var out []Turn
	err = rd.Scan(prefix, func(k, v []byte) error {
		var t turn
		if err := msgpack.Unmarshal(v, &t); err != nil {
			return fmt.Errorf("runs: corrupt row %q: %w", k, err)
		}
		out = append(out, Turn{Input: t.Input, Round: t.Round})
		return nil
	})
	return out, err
}

// TurnsFrom returns the run and its history entries at turn from and
// after, in order, reading only those (a point read each): what a reader
// that keeps the earlier ones asks, at a cost that does not grow with the
// run. Errors as Get.
func TurnsFrom(rd projector.Reader, tenant, run string, from int) (Run, []Turn, error) {
	r, err := Get(rd, tenant, run)
	if err != nil {
		return Run{}, nil, err
	}
	var out []Turn
	for n := max(from, 1); n <= r.Turns; n++ {
		k, err := turnKey(tenant, run, n)
		if err != nil {
			return Run{}, nil, err
		}
		var t turn
		found, err := load(rd, k, &t)
		if err != nil {
			return Run{}, nil, err
		}
		if found {
			out = append(out, Turn{Input: t.Input, Round: t.Round})
		}
	}
	return r, out, nil
}

// RoundsFrom returns a run's rounds at turn from and after, in order.
// Errors as Get.
func RoundsFrom(rd projector.Reader, tenant, run string, from int) ([]Round, error) {
	_, ts, err := TurnsFrom(rd, tenant, run, from)
	if err != nil {
		return nil, err
	}
	return roundsOf(ts), nil
}

// Rounds returns a run's rounds in order. Errors as Get.
func Rounds(rd projector.Reader, tenant, run string) ([]Round, error) {
	ts, err := Turns(rd, tenant, run)
	if err != nil {
		return nil, err
	}
	return roundsOf(ts), nil
}

// roundsOf is the rounds of history entries ts, in their order (nil for
// none).
func roundsOf(ts []Turn) []Round {
	var out []Round
	for _, t := range ts {
		if t.Round != nil {
			out = append(out, *t.Round)
		}
	}
	return out
}

// PlanWrite returns the verdict on the plan write at stream sequence seq;
// ErrNotFound when the projection has none (not applied yet, or not a plan
// write of this run).
func PlanWrite(rd projector.Reader, tenant, run string, seq uint64) (PlanVerdict, error) {
	if err := validTenant(tenant); err != nil {
		return PlanVerdict{}, err
	}
	k, err := planKey(tenant, run, seq)
	if err != nil {
		return PlanVerdict{}, err
	}
	var v PlanVerdict
	found, err := load(rd, k, &v)
	if err != nil {
		return PlanVerdict{}, err
	}
	if !found {
		return PlanVerdict{}, fmt.Errorf("%w: plan write %d of run %q", ErrNotFound, seq, run)
	}
	return v, nil
}
