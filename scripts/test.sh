#!/usr/bin/env bash
# Run every TinyElf check: Go vet, go.mod and go.sum tidy (go mod tidy
# -diff), Go tests (with the race detector, and the official MCP
# conformance suite against TinyElf's MCP client and bridge), the
# frontend's tests, type check and build, the browser end-to-end tests against
# `tinyelf serve` (screenshots in artifacts/e2e/), the desktop build, a
# smoke run of the desktop window under Xvfb, and the release's package
# checks (scripts/package-test.sh; it installs the .deb system-wide and
# purges it again, so it needs root or sudo). Installs what it needs first.
# CI runs exactly this (.ci/run).
#
# Usage: bash scripts/test.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

ensure_packages "${TINYELF_BUILD_PACKAGES[@]}" "${TINYELF_SMOKE_PACKAGES[@]}" "${TINYELF_TEST_PACKAGES[@]}"
# What was just installed is required: a test that would skip for a missing
# test dependency fails instead (internal/testdeps).
export TINYELF_CI=1
require_tool go "install Go 1.26 or later"
frontend_deps

step "go vet ./..."
go vet ./...

step "go mod tidy -diff (go.mod and go.sum say exactly what the code imports)"
go mod tidy -diff

step "go test -race ./... (with the MCP conformance suite: TINYELF_CONFORMANCE=1)"
TINYELF_CONFORMANCE=1 go test -race -count=1 ./...

frontend_test
frontend_build
frontend_e2e
desktop_build

step "smoke run of build/bin/tinyelf (private D-Bus bus + Xvfb)"
go run ./scripts/smoke -bin build/bin/tinyelf -out artifacts/smoke

step "release and package checks (scripts/package-test.sh: build dist/, install the .deb, upgrade, Windows installer)"
bash scripts/package-test.sh

step "all checks passed in ${SECONDS}s"
