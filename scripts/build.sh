#!/usr/bin/env bash
# Build the TinyElf desktop binary into build/bin/tinyelf, installing what the
# build needs first (Debian packages, npm packages).
#
# Usage: bash scripts/build.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

ensure_packages "${TINYELF_BUILD_PACKAGES[@]}"
frontend_deps
frontend_build
desktop_build
step "built build/bin/tinyelf"
