package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Watch returns a context cancelled by the first SIGINT or SIGTERM, when
// onSignal runs with the signal. If stop is not called within grace of
// that signal, or a second signal comes first, forced runs with the first
// signal, in the watcher's goroutine; it is expected to end the process.
// stop releases the signals and ends the watch (forced no longer runs);
// call it once the work has returned. It may be called more than once.
func Watch(grace time.Duration, onSignal, forced func(os.Signal)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var s os.Signal
		select {
		case s = <-sigs:
		case <-done:
			return
		}
		onSignal(s)
		cancel()
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
		case <-sigs:
		}
		forced(s)
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			cancel()
		})
	}
}

// Name is "SIGINT" or "SIGTERM" for those signals, else the signal's
// own description.
func Name(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
