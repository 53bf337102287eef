package executor

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"
)

// stdioGrace is how long a stdio MCP server has, once its session closed
// (stdin closed), to exit by itself before its group is killed.
const stdioGrace = 2 * time.Second

// runSession runs argv (argv[0] a path) with env as runProgram does — a
// process group (and cgroup) of its own, killed whole at the end, so
// nothing it started outlives the call — and hands its stdin and stdout to
// talk, which speaks to it and closes them. It returns talk's error and the
// end of the program's stderr; an error only when the program could not be
// started (nothing ran) comes as start.
func runSession(ctx context.Context, argv, env []string, talk func(stdout io.ReadCloser, stdin io.WriteCloser) error) (stderr []byte, err, start error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, err
	}
	build := func() (*exec.Cmd, *group) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
		cmd.WaitDelay = waitDelay
		return cmd, newGroup(cmd)
	}
	cmd, g := build()
	start = g.start()
	if errors.Is(start, errCgroupStart) {
		cmd, g = build()
		start = g.start()
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if start != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, nil, start
	}
	tb := &tailBuffer{max: stderrMax}
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		io.Copy(tb, errR)
	}()
	err = talk(outR, inW)
	inW.Close()
	exited := make(chan struct{})
	go func() { waitExited(cmd); close(exited) }()
	select {
	case <-exited:
	case <-time.After(stdioGrace):
	}
	g.killLast()
	cmd.Wait()
	g.release()
	outR.Close()
	select {
	case <-stderrDone:
	case <-time.After(waitDelay):
		errR.Close()
		<-stderrDone
	}
	errR.Close()
	return tb.Bytes(), err, nil
}
