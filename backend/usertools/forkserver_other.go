//go:build !unix

package usertools

import (
	"context"
	"errors"

	"tinyelf/backend/proc"
)

// forkServer is not available without fork and descriptor passing: every
// Python call starts an interpreter of its own.
type forkServer struct{}

func newForkServer([]string, []string, *proc.Children) *forkServer { return &forkServer{} }

var errNotServed = errors.New("not served by the fork server")

func (z *forkServer) run(context.Context, processSpec) (processResult, error) {
	return processResult{}, errNotServed
}

func (z *forkServer) close() {}

func (z *forkServer) pid() int { return 0 }
