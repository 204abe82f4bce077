package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// watchSignals returns a context that ends at the first SIGINT or SIGTERM,
// so the command under way winds down (a run cancels its turn, serve shuts
// down); a second signal calls exit at once (130 for SIGINT, 143 for
// SIGTERM) whatever is still running. stop ends the watching.
func watchSignals(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go interrupts(sigs, done, cancel, stderr, exit)
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// interrupts is watchSignals' goroutine: it runs until done is closed.
func interrupts(sigs <-chan os.Signal, done <-chan struct{}, cancel func(), stderr io.Writer, exit func(int)) {
	first := true
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			if first {
				first = false
				cancel()
				continue
			}
			code := exitInterrupt
			if sig == syscall.SIGTERM {
				code = 128 + int(syscall.SIGTERM)
			}
			fmt.Fprintf(stderr, "\ntinyelf: %v again: quitting now\n", sig)
			exit(code)
			return
		}
	}
}
