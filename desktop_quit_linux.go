//go:build desktop && linux

package main

/*
#cgo linux pkg-config: gtk+-3.0
#include <gtk/gtk.h>

static gboolean tinyelf_quit_main_loop(gpointer data) {
	gtk_main_quit();
	return G_SOURCE_REMOVE;
}

static void tinyelf_quit_on_main_thread(void) {
	g_idle_add(tinyelf_quit_main_loop, NULL);
}
*/
import "C"

import "context"

// quitWindow ends the window's GTK main loop, as wailsruntime.Quit does, but
// from GTK's own thread: Wails v2.16 calls gtk_main_quit from whichever
// goroutine asked, and GTK is not thread-safe (the app was seen to crash on
// SIGTERM that way). beforeClose runs first, on the calling goroutine, as
// Wails runs OnBeforeClose before it quits; when it says to keep the window
// open, nothing more happens.
func quitWindow(wctx context.Context, beforeClose func(context.Context) bool) {
	if beforeClose != nil && beforeClose(wctx) {
		return
	}
	C.tinyelf_quit_on_main_thread()
}
