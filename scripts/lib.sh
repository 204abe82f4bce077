# shellcheck shell=bash
# Shared helpers for TinyElf's scripts. Source it; do not run it.
# shellcheck disable=SC2034 # the package lists are used by the scripts that source this file

# The Debian packages the desktop build needs (cgo against GTK 3 and WebKitGTK 4.1).
TINYELF_BUILD_PACKAGES=(libgtk-3-dev libwebkit2gtk-4.1-dev pkg-config build-essential)

# The Debian packages the smoke run of the desktop window needs: a virtual X
# screen, a private D-Bus session bus, xwininfo to find the window, xprop for
# its icon and title, and xdotool to type into it.
TINYELF_SMOKE_PACKAGES=(xvfb dbus dbus-x11 x11-utils xdotool)

# The Debian packages the tests need besides: ripgrep for the Grep tool,
# Chromium for the browser tests of `tinyelf serve`, Noto CJK so that the
# Japanese screenshots (browser and desktop) show text rather than boxes,
# gnome-keyring for the test of the OS keyring path of the secret store (a
# Secret Service on a private D-Bus session bus), and python3 for the user
# tools written in Python (seed 002). Under scripts/test.sh (TINYELF_CI=1) a
# test that finds one of them missing fails instead of skipping.
TINYELF_TEST_PACKAGES=(ripgrep chromium fonts-noto-cjk gnome-keyring python3)

# The build tags of the desktop binary (see wails.json).
TINYELF_DESKTOP_TAGS=desktop,production,webkit2_41

# TINYELF_ROOT is the repository root, whatever the caller's working directory.
TINYELF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# step prints a heading for one step with the seconds since the script
# started, so a long log is easy to scan and slow steps stand out.
step() {
	printf '\n==> [%4ss] %s\n' "$SECONDS" "$*" >&2
}

# die prints an error and exits non-zero.
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# as_root runs a command as root: directly when we are root, through sudo
# when it exists, and fails with a clear message otherwise.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root to run: $* (run as root or install sudo)"
	fi
}

# missing_packages prints the named Debian packages that are not installed.
missing_packages() {
	local pkg status
	for pkg in "$@"; do
		status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
		if [ "$status" != "installed" ]; then
			printf '%s\n' "$pkg"
		fi
	done
}

# ensure_packages installs the named Debian packages that are missing, and does
# not touch apt at all when every one is already installed.
ensure_packages() {
	local missing
	mapfile -t missing < <(missing_packages "$@")
	if [ "${#missing[@]}" -eq 0 ]; then
		return 0
	fi
	command -v apt-get >/dev/null 2>&1 ||
		die "missing packages (${missing[*]}) and no apt-get; install them by hand"
	step "installing Debian packages: ${missing[*]}"
	as_root apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# require_tool fails with a hint when a command is not on PATH.
require_tool() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH: $2"
}

# frontend_deps installs the frontend's npm packages from package-lock.json
# unless node_modules already matches it.
frontend_deps() {
	require_tool node "install Node.js 20.19 or later"
	require_tool npm "install npm (it comes with Node.js)"
	local nodever
	nodever="$(node -p 'process.versions.node')"
	case "$nodever" in
	[0-9].* | 1[0-9].* | 20.[0-9].* | 20.1[0-8].*)
		die "Node.js $nodever is too old for Vite 8: install Node.js 20.19+ or 22.12+" ;;
	esac
	local fe="$TINYELF_ROOT/frontend"
	if [ -f "$fe/node_modules/.package-lock.json" ] &&
		[ "$fe/node_modules/.package-lock.json" -nt "$fe/package-lock.json" ] &&
		[ "${TINYELF_FORCE_NPM_CI:-}" != 1 ]; then
		return 0
	fi
	step "npm ci (frontend)"
	(cd "$fe" && npm ci --no-audit --no-fund)
}

# frontend_build builds the frontend into frontend/dist, which the desktop
# binary embeds.
frontend_build() {
	step "npm run build (frontend)"
	(cd "$TINYELF_ROOT/frontend" && npm run build)
}

# frontend_test runs the frontend's unit tests and type check.
frontend_test() {
	step "npm test (frontend unit tests)"
	(cd "$TINYELF_ROOT/frontend" && npm test)
	step "npm run check (svelte-check)"
	(cd "$TINYELF_ROOT/frontend" && npm run check)
}

# desktop_build builds the desktop binary into build/bin/tinyelf.
desktop_build() {
	require_tool go "install Go 1.26 or later"
	step "go build -tags $TINYELF_DESKTOP_TAGS (desktop binary)"
	(cd "$TINYELF_ROOT" && go build -tags "$TINYELF_DESKTOP_TAGS" -o build/bin/tinyelf .)
}

# frontend_e2e runs the browser end-to-end tests (frontend/e2e/run.mjs): it
# builds `tinyelf serve` with the embedded frontend/dist, the fake model and
# the fake MCP server, drives headless Chromium through the UI and saves
# screenshots under artifacts/e2e/. Needs frontend/dist (frontend_build).
frontend_e2e() {
	require_tool go "install Go 1.26 or later"
	step "e2e: tinyelf serve + fake model in headless Chromium (screenshots in artifacts/e2e/)"
	(cd "$TINYELF_ROOT/frontend" && npm run e2e)
}
