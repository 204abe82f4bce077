//go:build desktop && linux

package main

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// focusRunning asks the TinyElf already running with this single-instance
// lock (if any) to show its window, as Wails' own lock does, and reports
// whether one answered. Wails checks the lock only once the window is being
// made, after TinyElf's services started; asking first keeps a second
// launch from opening the session store and starting MCP servers at all.
func focusRunning(lockID string) bool {
	// The names Wails' Linux SingleInstanceLock registers on the session bus.
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(lockID)
	name, path := "org."+id+".SingleInstance", dbus.ObjectPath("/org/"+id+"/SingleInstance")
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false // no bus: no lock either; Wails decides
	}
	defer conn.Close()
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil || !owned {
		return false
	}
	data := options.SecondInstanceData{Args: os.Args[1:]}
	data.WorkingDirectory, _ = os.Getwd()
	msg, err := json.Marshal(data)
	if err != nil {
		return false
	}
	return conn.Object(name, path).Call(name+".SendMessage", 0, string(msg)).Err == nil
}
