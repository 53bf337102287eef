package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve serves /metrics and /healthz of src on addr (host:port) and runs
// the log observer, until ctx ends; it then shuts the server down and
// returns nil. It returns an error at once when addr cannot be listened on
// or the observer cannot start.
func Serve(ctx context.Context, addr string, src Sources) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: listen %s: %w", addr, err)
	}
	return ServeListener(ctx, ln, src)
}

// ServeListener is Serve on a listener it closes.
func ServeListener(ctx context.Context, ln net.Listener, src Sources) error {
	m, err := New(src)
	if err != nil {
		ln.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: m.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	observed := make(chan error, 1)
	go func() { observed <- m.Run(ctx) }()
	m.log.Info("metrics serving", "addr", ln.Addr().String())
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-observed:
		observed <- runErr // for the wait below
	case err := <-served:
		cancel()
		<-observed
		return fmt.Errorf("metrics: serve: %w", err)
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	err = srv.Shutdown(sctx)
	if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if oerr := <-observed; oerr != nil {
		return oerr
	}
	return err
}
