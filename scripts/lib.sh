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
# Japanese screenshots (browser and desktop) show text rather than boxes, and
# gnome-keyring for the test of the OS keyring path of the secret store (a
# Secret Service on a private D-Bus session bus).
TINYELF_TEST_PACKAGES=(ripgrep chromium fonts-noto-cjk gnome-keyring)

# The build tags of the desktop binary (see wails.json).
TINYELF_DESKTOP_TAGS=desktop,production,webkit2_41

# TINYELF_ROOT is the repository root, whatever the caller's working directory.
TINYELF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# TINYELF_BASE_VERSION is the release the first tag (v0.1.0) will name. It is
# used only while the history has no release tag: the builds before it are
# 0.1.0~dev.N.gHASH, which sort below 0.1.0 and in commit order.
TINYELF_BASE_VERSION=0.1.0

# TINYELF_APP_ID is the AppStream component ID (reverse DNS) of the Linux
# package's metainfo. Software centres follow an app by it: choose it once.
TINYELF_APP_ID=io.github.tinyelf.TinyElf

# TINYELF_MAINTAINER is the Maintainer of the Debian package (and the
# changelog's signer).
TINYELF_MAINTAINER='TinyElf maintainers <maintainers@users.noreply.a-seed-2cbb4c7b.example>'

# tinyelf_version [REV] prints the version of a build of REV (default HEAD),
# from `git describe` against the release tags (vX.Y.Z):
#   on the tag v0.2.0               0.2.0
#   5 commits after it              0.2.0+5.g1a2b3c4
#   no tag in the history yet       0.1.0~dev.303.g7ff6024 (303 commits; TINYELF_BASE_VERSION)
#   a pre-release tag v0.2.0-rc1    0.2.0~rc1
# Every form is a Debian version that sorts as the releases do (~ sorts
# before everything, + after), so a newer build always upgrades an older one.
# With --worktree, uncommitted changes to tracked files add ".dirty". Outside
# a git checkout it prints $TINYELF_VERSION, or nothing (a development build).
tinyelf_version() {
	local rev=HEAD worktree=""
	while [ $# -gt 0 ]; do
		case "$1" in
		--worktree) worktree=1 ;;
		*) rev="$1" ;;
		esac
		shift
	done
	if [ -n "${TINYELF_VERSION:-}" ]; then
		tinyelf_check_version "$TINYELF_VERSION" || return 1
		printf '%s\n' "$TINYELF_VERSION"
		return 0
	fi
	local git=(git -C "$TINYELF_ROOT")
	if ! "${git[@]}" rev-parse --verify -q "$rev^{commit}" >/dev/null 2>&1; then
		return 0
	fi
	local desc v
	desc="$("${git[@]}" describe --tags --long --abbrev=7 --match 'v[0-9]*' "$rev" 2>/dev/null || true)"
	if [[ "$desc" =~ ^v(.+)-([0-9]+)-g([0-9a-f]+)$ ]]; then
		v="${BASH_REMATCH[1]//-/\~}" # a pre-release (v1.0.0-rc1) sorts before its release
		if [ "${BASH_REMATCH[2]}" != 0 ]; then
			v="$v+${BASH_REMATCH[2]}.g${BASH_REMATCH[3]}"
		fi
	else
		v="$TINYELF_BASE_VERSION~dev.$("${git[@]}" rev-list --count "$rev").g$("${git[@]}" rev-parse --short=7 "$rev")"
	fi
	if [ -n "$worktree" ] && [ -n "$("${git[@]}" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		v="$v.dirty"
	fi
	tinyelf_check_version "$v" || return 1
	printf '%s\n' "$v"
}

# tinyelf_check_version fails with a message unless $1 can be both TinyElf's
# version and a Debian package version: it starts with a digit and holds
# only letters, digits and . + ~.
tinyelf_check_version() {
	if ! [[ "$1" =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
		printf 'error: %q is not a usable version (want a digit first, then letters, digits, . + ~)\n' "$1" >&2
		return 1
	fi
}

# tinyelf_ldflags VERSION prints the -ldflags value that sets the version
# (backend/version); an empty VERSION gives a development build.
tinyelf_ldflags() {
	if [ -n "$1" ]; then
		printf -- '-X tinyelf/backend/version.version=%s\n' "$1"
	fi
}

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

# desktop_build builds the desktop binary into build/bin/tinyelf, its
# version from tinyelf_version --worktree.
desktop_build() {
	require_tool go "install Go 1.26 or later"
	local v
	v="$(tinyelf_version --worktree)" || die "cannot tell the version of this checkout"
	step "go build -tags $TINYELF_DESKTOP_TAGS (desktop binary, version ${v:-dev})"
	(cd "$TINYELF_ROOT" && go build -tags "$TINYELF_DESKTOP_TAGS" -ldflags "$(tinyelf_ldflags "$v")" -o build/bin/tinyelf .)
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
