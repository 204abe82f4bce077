//go:build windows

package proc

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/windows"
)

// childSys is the job object the child and everything it starts run in.
// The job is made to kill its processes when its last handle closes, which
// happens when TinyElf exits, however it exits.
type childSys struct {
	mu  sync.Mutex
	job windows.Handle
}

func (ch *Child) attach(p *os.Process) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("set up job object: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open child process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("assign child to job object: %w", err)
	}
	ch.sys.job = job
	return nil
}

func (ch *Child) signal(bool) { ch.kill() }

func (ch *Child) kill() {
	ch.sys.mu.Lock()
	defer ch.sys.mu.Unlock()
	if ch.sys.job != 0 {
		_ = windows.TerminateJobObject(ch.sys.job, 1)
	}
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime             int64
	TotalKernelTime           int64
	ThisPeriodTotalUserTime   int64
	ThisPeriodTotalKernelTime int64
	TotalPageFaultCount       uint32
	TotalProcesses            uint32
	ActiveProcesses           uint32
	TotalTerminatedProcesses  uint32
}

func (ch *Child) empty() bool {
	ch.sys.mu.Lock()
	defer ch.sys.mu.Unlock()
	if ch.sys.job == 0 {
		return true
	}
	var acc jobAccounting
	err := windows.QueryInformationJobObject(ch.sys.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&acc)), uint32(unsafe.Sizeof(acc)), nil)
	return err == nil && acc.ActiveProcesses == 0
}

// closeSys closes the job, which kills whatever is still in it.
func (ch *Child) closeSys() {
	ch.sys.mu.Lock()
	defer ch.sys.mu.Unlock()
	if ch.sys.job != 0 {
		windows.CloseHandle(ch.sys.job)
		ch.sys.job = 0
	}
}
