#!/usr/bin/env bash
# Smoke-check the desktop binary: it must refuse to start without a display,
# open a rendered window under Xvfb (screenshot in artifacts/smoke/), and exit
# cleanly on SIGTERM; then, with a fake model on loopback, a message typed
# into the window must name it ("Fix the tests — TinyElf") and closing it
# while the answer streams must ask first (scripts/smoke/main.go says it
# all). Builds the binary first unless SMOKE_NO_BUILD=1.
#
# With `memory`, it checks nothing but measures the idle window memory (the
# app and its WebKit processes, RSS) of TinyElf and of a Wails hello-world
# window (scripts/smoke/hello, built into build/bin/wails-hello) in the same
# conditions, SMOKE_RUNS times each (3 by default; screenshots and logs in
# artifacts/smoke-memory/). A benchmark: scripts/test.sh does not run it.
#
# Usage: bash scripts/smoke.sh [memory]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

mode="${1:-check}"
case "$mode" in
check | memory) ;;
*) die "unknown mode $mode (want: bash scripts/smoke.sh [memory])" ;;
esac

ensure_packages "${TINYELF_SMOKE_PACKAGES[@]}"
if [ "${SMOKE_NO_BUILD:-}" != 1 ]; then
	bash scripts/build.sh
fi
if [ "$mode" = memory ]; then
	if [ "${SMOKE_NO_BUILD:-}" != 1 ]; then
		step "go build -tags $TINYELF_DESKTOP_TAGS ./scripts/smoke/hello (the Wails hello-world window)"
		go build -tags "$TINYELF_DESKTOP_TAGS" -o build/bin/wails-hello ./scripts/smoke/hello
	fi
	step "idle window memory: build/bin/tinyelf vs build/bin/wails-hello, ${SMOKE_RUNS:-3} runs each (private D-Bus bus + Xvfb)"
	go run ./scripts/smoke -memory "${SMOKE_RUNS:-3}" -bin build/bin/tinyelf -hello build/bin/wails-hello -out artifacts/smoke-memory
	exit 0
fi
step "smoke run of build/bin/tinyelf (private D-Bus bus + Xvfb)"
go run ./scripts/smoke -bin build/bin/tinyelf -out artifacts/smoke
