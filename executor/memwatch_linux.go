package executor

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// memPoll is how often a sandboxed program's resident memory is read.
const memPoll = 10 * time.Millisecond

// watchMemory reads, every memPoll, the resident memory of the process pid
// and all its descendants, and calls over once (and stops) when their sum
// passes max. The sandbox's RLIMIT_DATA alone is no limit: Linux counts a
// writable mapping made with MAP_FIXED over a PROT_NONE reservation as no
// growth (the replaced pages are subtracted whatever their protection), so
// a runtime that reserves before it maps (Go's does, in some runs) or a
// program that means to escape allocates past it; resident memory is what
// the host pays, and no mapping trick hides it. Between two reads a program
// may pass the limit by what it can touch in memPoll. stop ends the watch
// and returns once it has ended.
func watchMemory(pid int, max int64, over func()) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	page := int64(os.Getpagesize())
	go func() {
		defer close(ended)
		t := time.NewTicker(memPoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if residentPages(pid)*page > max {
				over()
				return
			}
		}
	}()
	return func() { close(done); <-ended }
}

// residentPages sums the resident pages (statm's second field) of pid and
// of its descendants, found through each thread's children list.
func residentPages(pid int) int64 {
	var sum int64
	seen := map[int]bool{}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		dir := "/proc/" + strconv.Itoa(p)
		if statm, err := os.ReadFile(dir + "/statm"); err == nil {
			if f := bytes.Fields(statm); len(f) > 1 {
				n, _ := strconv.ParseInt(string(f[1]), 10, 64)
				sum += n
			}
		}
		tasks, _ := os.ReadDir(dir + "/task")
		for _, task := range tasks {
			kids, err := os.ReadFile(dir + "/task/" + task.Name() + "/children")
			if err != nil {
				continue
			}
			for _, k := range bytes.Fields(kids) {
				if c, err := strconv.Atoi(string(k)); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return sum
}
