package executor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The cgroups a crashed executor left are ended by the next one: what
// still runs in them is killed and they are removed; those of a live
// executor are left alone.
func TestEndStaleCgroups(t *testing.T) {
	parent := cgroupParent()
	if parent == "" {
		t.Skip("no cgroup v2 this process may write here; the executor contains tools as a subreaper")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(parent, fmt.Sprintf("toolstream-%d-1", gone.Process.Pid))
	live := filepath.Join(parent, fmt.Sprintf("toolstream-%d-1", os.Getppid()))
	for _, d := range []string{stale, live} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Remove(live)
	fd, err := unix.Open(stale, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sleep := exec.Command("sleep", "300")
	sleep.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = sleep.Start()
	unix.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleep.Wait() }()
	endStale(parent)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		sleep.Process.Kill()
		t.Fatal("the process in the stale cgroup was not killed")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("the stale cgroup is still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("a live executor's cgroup was removed: %v", err)
	}
}
