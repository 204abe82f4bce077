#!/usr/bin/env bash
# Browser benchmarks of the UI (issue 15): the first page of `tinyelf serve`
# in headless Chromium (launch and navigation to interactive), and a
# 2,000-message session (time to render its last message, frame times while
# scrolling it to its first message and back, from requestAnimationFrame and
# from a Chrome trace, beside a plain page as tall). Measured and printed, not
# asserted (frontend/e2e/bench.mjs). Results and traces go to
# artifacts/bench-ui/. Installs what it needs first.
#
# Usage: bash scripts/bench-ui.sh   (BENCH_RUNS, BENCH_OPEN_RUNS,
# BENCH_SCROLL_RUNS, BENCH_MESSAGES, BENCH_SCROLL_STEP: see bench.mjs)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

ensure_packages chromium fonts-noto-cjk
frontend_deps
frontend_build
require_tool go "install Go 1.26 or later"
step "bench: tinyelf serve in headless Chromium (results in artifacts/bench-ui/)"
(cd "$TINYELF_ROOT/frontend" && node e2e/bench.mjs)
step "bench finished in ${SECONDS}s"
