#!/usr/bin/env bash
# Build TinyElf and run it. Arguments go to tinyelf unchanged:
#
#   bash scripts/run.sh            open the desktop window
#   bash scripts/run.sh serve      the same UI in a browser
#   bash scripts/run.sh --help     tinyelf's own help
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bash "$TINYELF_ROOT/scripts/build.sh"
step "build/bin/tinyelf $*"
exec "$TINYELF_ROOT/build/bin/tinyelf" "$@"
