//go:build !unix && !windows

package proc

import "os"

type childSys struct{ p *os.Process }

func (ch *Child) attach(p *os.Process) error { ch.sys.p = p; return nil }
func (ch *Child) signal(bool)                { ch.kill() }
func (ch *Child) kill()                      { _ = ch.sys.p.Kill() }
func (ch *Child) empty() bool                { return ch.reaped.Load() }
func (ch *Child) closeSys()                  {}
