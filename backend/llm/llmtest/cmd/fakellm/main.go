// Command fakellm serves a scripted fake model on loopback for end-to-end
// tests that run outside of `go test` (the browser tests drive `tinyelf
// serve` against it). It speaks the OpenAI chat-completions and Anthropic
// Messages streaming formats, prints its base URL (including /v1) on the
// first line of stdout, and serves until it is interrupted or terminated.
//
//	fakellm [-addr 127.0.0.1:0] [-script turns.json] [-echo]
//
// The script format is llmtest.Script's. -echo answers every request the
// script does not cover with the user's last message. A turn with
// "pauseAfter" holds its stream until POST <base URL>/_llmtest/resume.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"tinyelf/backend/llm/llmtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakellm:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	scriptPath := flag.String("script", "", "JSON script of turns (see llmtest.Script)")
	echo := flag.Bool("echo", false, "answer requests the script does not cover with the user's last message")
	flag.Parse()

	var script llmtest.Script
	if *scriptPath != "" {
		data, err := os.ReadFile(*scriptPath)
		if err != nil {
			return err
		}
		if script, err = llmtest.ParseScript(data); err != nil {
			return err
		}
	}
	if *echo && script.Default == nil {
		script.Default = &llmtest.Turn{Echo: true}
	}

	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *addr, err)
	}
	srv := llmtest.Serve(l)
	defer srv.Close()
	srv.Load(script)
	fmt.Println(srv.URL)

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	<-stop
	return nil
}
