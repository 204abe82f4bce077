#!/usr/bin/env bash
# Browser end-to-end tests: builds the frontend and `tinyelf serve`, and drives
# Debian's headless Chromium through first run, keyboard focus, the folder
# picker, chat, approvals, plan mode, stopping, search, sessions, settings and
# MCP import, Settings → Capabilities and a capability chip, Settings → Tools
# (a broken and a skipped user tool, a credential in the vault) and the
# chat's skipped-tool card, Settings → Skills, the / menu, trusting a project
# skill, Settings → Hooks with a folder's project hooks trusted on the
# approval card and their runs in the chat, a subagent's approval in its
# parent's window, Settings → Agents, theme and language
# (frontend/e2e/run.mjs), each scenario against
# its own fake model and server on loopback with a fresh data folder.
# Screenshots and the servers' logs go to artifacts/e2e/. Installs what it
# needs first.
#
# Usage: bash scripts/e2e.sh
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

ensure_packages chromium fonts-noto-cjk
frontend_deps
frontend_build
frontend_e2e
step "e2e passed in ${SECONDS}s; screenshots in artifacts/e2e/"
