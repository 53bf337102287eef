package agent

// SetBeforePlanWrite makes f run between a plan call's read of the run
// and its write (another writer moving the run in between).
func SetBeforePlanWrite(d *Driver, f func()) { d.beforePlanWrite = f }
