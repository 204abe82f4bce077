#!/usr/bin/env bash
# Smoke-check the desktop binary: it must refuse to start without a display,
# open a rendered window under Xvfb (screenshot in artifacts/smoke/), and exit
# cleanly on SIGTERM. Builds the binary first unless SMOKE_NO_BUILD=1.
#
# Usage: bash scripts/smoke.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

ensure_packages "${TINYELF_SMOKE_PACKAGES[@]}"
if [ "${SMOKE_NO_BUILD:-}" != 1 ]; then
	bash scripts/build.sh
fi
step "smoke run of build/bin/tinyelf (private D-Bus bus + Xvfb)"
go run ./scripts/smoke -bin build/bin/tinyelf -out artifacts/smoke
