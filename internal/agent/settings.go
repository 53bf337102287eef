package agent

// Settings are the driver's settings that may change while it runs
// (the gateway config's run: and memory:, reloaded on SIGHUP or when the file
// changes): Config's fields of the same names give the first ones. A
// change reaches what each run decides next — the next round's tools, the
// next delegate or plan call, the next recall — never a round under way.
type Settings struct {
	PlansOff, DelegateOff bool
	// ReplansMax and DelegateDepthMax: 0 or less is the default (3, 1).
	ReplansMax, DelegateDepthMax int
	Memory                       MemoryConfig
}

func (s *Settings) setDefaults() {
	if s.ReplansMax <= 0 {
		s.ReplansMax = 3
	}
	if s.DelegateDepthMax <= 0 {
		s.DelegateDepthMax = 1
	}
}

// SetSettings puts s in force for what the runs decide next. Safe to call
// while the driver drives runs.
func (d *Driver) SetSettings(s Settings) {
	s.setDefaults()
	d.settings.Store(&s)
	d.log.Info("run mode: settings in force", "plans_off", s.PlansOff, "delegate_off", s.DelegateOff,
		"replans_max", s.ReplansMax, "delegate_depth_max", s.DelegateDepthMax, "memory_off", s.Memory.Off)
}

// Settings returns the settings in force.
func (d *Driver) Settings() Settings { return *d.settings.Load() }

// set is the settings in force, for the driver's decisions.
func (d *Driver) set() *Settings { return d.settings.Load() }
