#!/usr/bin/env bash
# Check TinyElf's release artifacts as a user gets them (scripts/test.sh runs
# this; so does `task package-test`):
#
#  1. build them (scripts/release.sh into dist/) unless PACKAGE_TEST_NO_BUILD=1;
#  2. the .deb: dpkg-deb --info/--contents list what is promised, lintian
#     finds no error (and no warning README.md does not list),
#     desktop-file-validate and appstreamcli validate pass;
#  3. apt-get install ./dist/tinyelf_*.deb; tinyelf --version prints the
#     version; the Xvfb smoke (scripts/smoke) starts /usr/bin/tinyelf through
#     the installed desktop entry in a desktop session's bare environment;
#  4. data made with the installed package outlives `apt-get remove` and
#     `apt-get purge` (the package never touches a user's data folder);
#  5. upgrade: a package built from an earlier commit is installed, used
#     (sessions, settings, a skill, a user tool), and the new one installed
#     over it: everything is still there, and the session database, upgraded
#     from the old schema, was copied aside first, once;
#  6. the Windows installer: a PE32 NSIS installer that holds the binary and
#     the uninstaller (7z l);
#  7. dist/SHA256SUMS covers every artifact and matches.
#
# The package is installed system-wide, so it needs root (or sudo). The
# machine is left as it was found: the package this test installed is purged
# at the end, failed or not; a tinyelf package installed by someone else
# stops the test before it touches anything. Running it twice is safe.
#
# Usage: bash scripts/package-test.sh
#        PACKAGE_TEST_NO_BUILD=1 bash scripts/package-test.sh   (check dist/ as it is)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$TINYELF_ROOT"

# PREVIOUS_REV is the "previous release" of the upgrade test. No release is
# tagged yet, so it is a fixed commit: the last one of main before session
# database migration 0005, so that the upgrade runs a schema migration (and
# must back the database up first). It has everything the test uses
# (sessions import, mcp add, user skills and tools). Built with
# `scripts/release.sh --rev`, i.e. from `git archive` of that commit:
# a clean tree of exactly that commit, nothing of the work tree.
PREVIOUS_REV=4982b4e
# PREVIOUS_SCHEMA is its session database's schema version.
PREVIOUS_SCHEMA=4

# The marker that says this test installed the package (a leftover of a
# run that was killed is then purged on the next run).
MARKER=/var/lib/tinyelf-package-test.installed

failures=0
fail() {
	printf 'package-test: FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}
ok() { printf 'package-test: ok: %s\n' "$*" >&2; }
# expect_in HAYSTACK NEEDLE WHAT
expect_in() {
	if [[ "$1" == *"$2"* ]]; then ok "$3"; else fail "$3: ${2@Q} not in: $1"; fi
}

ensure_packages "${TINYELF_SMOKE_PACKAGES[@]}" lintian desktop-file-utils appstream p7zip-full file
work="$(mktemp -d "${TMPDIR:-/tmp}/tinyelf-package-test.XXXXXX")"

installed_version() { dpkg-query -W -f='${db:Status-Status} ${Version}' tinyelf 2>/dev/null | sed -n 's/^installed //p'; }

# purge removes the package this test installed, if it is there (dpkg
# itself: apt cannot name a package no repository has once it is removed).
purge() {
	as_root dpkg --purge tinyelf >/dev/null
	as_root rm -f "$MARKER"
}

cleanup() {
	local rc=$?
	if [ -e "$MARKER" ]; then
		purge || true
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT

if [ -n "$(installed_version)" ]; then
	if [ -e "$MARKER" ]; then
		step "purging the tinyelf package a killed run of this test left"
		purge
	else
		die "a tinyelf package ($(installed_version)) is installed on this machine and this test did not install it; it would replace it. Remove it first (apt-get remove tinyelf)."
	fi
fi

# --- 1. build ---------------------------------------------------------------
version="$(tinyelf_version)"
if [ "${PACKAGE_TEST_NO_BUILD:-}" != 1 ]; then
	bash scripts/release.sh
else
	# Check what dist/ holds, whatever commit it was built from.
	built="$(find dist -maxdepth 1 -name 'tinyelf_*_amd64.deb' | LC_ALL=C sort | tail -n 1)"
	[ -n "$built" ] || die "PACKAGE_TEST_NO_BUILD=1 but dist/ has no .deb (bash scripts/release.sh builds it)"
	version="$(dpkg-deb --field "$built" Version)"
fi
deb="dist/tinyelf_${version}_amd64.deb"
setup="dist/tinyelf_${version}_windows_amd64_setup.exe"
[ -f "$deb" ] || die "no $deb (bash scripts/release.sh builds it)"

# --- 2. the .deb's contents and metadata ------------------------------------
step "dpkg-deb --info / --contents $deb"
info="$(dpkg-deb --info "$deb")"
printf '%s\n' "$info" >&2
[ "$(dpkg-deb --field "$deb" Package)" = tinyelf ] && ok "Package: tinyelf" || fail "Package is not tinyelf"
[ "$(dpkg-deb --field "$deb" Version)" = "$version" ] && ok "Version: $version" || fail "Version is not $version"
[ "$(dpkg-deb --field "$deb" Architecture)" = amd64 ] && ok "Architecture: amd64" || fail "Architecture is not amd64"
depends="$(dpkg-deb --field "$deb" Depends)"
expect_in "$depends" "libgtk-3-0" "Depends names GTK 3"
expect_in "$depends" "libwebkit2gtk-4.1-0" "Depends names WebKitGTK 4.1"
expect_in "$(dpkg-deb --field "$deb" Recommends)" "ripgrep" "Recommends ripgrep"
contents="$(dpkg-deb --contents "$deb")"$'\n'
for path in ./usr/bin/tinyelf ./usr/share/applications/tinyelf.desktop \
	"./usr/share/metainfo/$TINYELF_APP_ID.metainfo.xml" ./usr/share/doc/tinyelf/copyright \
	./usr/share/doc/tinyelf/changelog.gz ./usr/share/man/man1/tinyelf.1.gz; do
	expect_in "$contents" " $path"$'\n' "the package holds $path"
done
for size in 16 24 32 48 64 128 256 512; do
	expect_in "$contents" " ./usr/share/icons/hicolor/${size}x${size}/apps/tinyelf.png"$'\n' "the package holds the ${size}px icon"
done
if grep -E '^-' <<<"$contents" | grep -v ' root/root ' >/dev/null; then
	fail "files not owned by root: $(grep -E '^-' <<<"$contents" | grep -v ' root/root ')"
fi
expect_in "$(dpkg-deb --contents "$deb" | grep ' ./usr/bin/tinyelf$')" "-rwxr-xr-x" "/usr/bin/tinyelf is executable"

tree="$work/tree"
dpkg-deb -x "$deb" "$tree"

step "lintian $deb"
lintian_out="$(lintian --tag-display-limit 0 --fail-on none "$deb" 2>&1 || true)"
printf '%s\n' "${lintian_out:-(nothing)}" >&2
if grep -qE '^E: ' <<<"$lintian_out"; then
	fail "lintian found errors"
else
	ok "lintian found no error"
fi
# Every warning must be one README.md lists (and explains).
readme_tags="$(sed -n '/<!-- lintian-warnings -->/,/<!-- \/lintian-warnings -->/p' README.md)"
while read -r tag; do
	[ -n "$tag" ] || continue
	if [[ "$readme_tags" == *"\`$tag\`"* ]]; then
		ok "lintian warning $tag is listed in README.md"
	else
		fail "lintian warning $tag is not listed (and explained) in README.md's lintian warnings"
	fi
done < <(sed -n 's/^W: tinyelf[^:]*: \([a-z0-9-]*\).*/\1/p' <<<"$lintian_out" | sort -u)

step "desktop-file-validate, appstreamcli validate"
if out="$(desktop-file-validate "$tree/usr/share/applications/tinyelf.desktop" 2>&1)"; then
	ok "desktop-file-validate passes${out:+ ($out)}"
else
	fail "desktop-file-validate: $out"
fi
if out="$(appstreamcli validate --no-net "$tree/usr/share/metainfo/$TINYELF_APP_ID.metainfo.xml" 2>&1)"; then
	ok "appstreamcli validate passes"
else
	fail "appstreamcli validate: $out"
fi
if out="$(appstreamcli validate-tree --no-net "$tree" 2>&1)"; then
	ok "appstreamcli validate-tree passes (the metainfo's desktop entry and icon are in the package)"
else
	fail "appstreamcli validate-tree: $out"
fi
expect_in "$(cat "$tree/usr/share/metainfo/$TINYELF_APP_ID.metainfo.xml")" "<release version=\"$version\"" "the metainfo names release $version"

# apt_install DEB installs a package file the way a user does.
apt_install() {
	as_root touch "$MARKER"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$(realpath "$1")"
}

# as_user HOME CMD... runs CMD in a bare environment with HOME as the home:
# no TINYELF_HOME, so the data folder is HOME/.config/tinyelf.
as_user() {
	local home="$1"
	shift
	env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C.UTF-8 "$@"
}

# --- 3. install, --version, the smoke through the desktop entry -------------
step "apt-get install ./$deb"
apt_install "$deb"
[ "$(installed_version)" = "$version" ] && ok "dpkg says tinyelf $version is installed" || fail "installed version is $(installed_version), want $version"
[ "$(command -v tinyelf)" = /usr/bin/tinyelf ] && ok "tinyelf on PATH is /usr/bin/tinyelf" || fail "tinyelf on PATH is $(command -v tinyelf)"
expect_in "$(as_user "$work/nohome" /usr/bin/tinyelf --version)" "tinyelf $version (" "tinyelf --version prints $version"

step "smoke: /usr/bin/tinyelf started through /usr/share/applications/tinyelf.desktop (private D-Bus bus + Xvfb)"
if go run ./scripts/smoke -bin /usr/bin/tinyelf -desktop-entry /usr/share/applications/tinyelf.desktop -out artifacts/package-smoke; then
	ok "the installed app opened from its desktop entry, found no model and showed the setup, raised its window on a second launch, and chatted"
else
	fail "the smoke of the installed package failed (artifacts/package-smoke/)"
fi

# make_data HOME makes a user's data with the installed tinyelf: two
# sessions (imported), an MCP server (settings), a skill and a user tool.
make_data() {
	local home="$1" data="$1/.config/tinyelf" i
	mkdir -p "$home"
	for i in 1 2; do
		cat >"$work/session-$i.json" <<EOF
{"format": "tinyelf.session", "version": 2, "session": {"id": "", "title": "Upgrade check $i"},
 "events": [
  {"seq": 1, "type": "session.created", "time": "2026-11-0${i}T09:00:00Z", "data": {"title": "Upgrade check $i", "workspace": "$home", "mode": "default", "provider": "Fake model", "model": "test-model"}},
  {"seq": 2, "type": "turn.start", "time": "2026-11-0${i}T09:00:01Z", "data": {"mode": "default"}},
  {"seq": 3, "type": "user.message", "time": "2026-11-0${i}T09:00:02Z", "data": {"text": "question-$i-before-upgrade"}},
  {"seq": 4, "type": "assistant.message", "time": "2026-11-0${i}T09:00:03Z", "data": {"text": "answer-$i-kept-across-upgrade", "model": "test-model", "stopReason": "end_turn"}},
  {"seq": 5, "type": "turn.end", "time": "2026-11-0${i}T09:00:04Z", "data": {"reason": "done", "iterations": 1}}
 ]}
EOF
		as_user "$home" tinyelf sessions import "$work/session-$i.json" >&2
	done
	as_user "$home" tinyelf mcp add upgrade-check-server --disabled -- /bin/true >&2
	mkdir -p "$data/skills/upgrade-check-skill"
	printf -- '---\nname: upgrade-check-skill\ndescription: A skill the upgrade test made.\n---\n# Upgrade check\n' \
		>"$data/skills/upgrade-check-skill/SKILL.md"
	mkdir -p "$data/common_tools"
	printf '%s\n' '{"description": "A tool the upgrade test made.", "command": ["/bin/cat"], "schemas": [{"name": "upgradecheck_run", "description": "Echo the input.", "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}' \
		>"$data/common_tools/upgradecheck.tool.json"
}

# check_data HOME WHAT checks that the data make_data made is all there, as
# the installed tinyelf sees it.
check_data() {
	local home="$1" what="$2" out
	out="$(as_user "$home" tinyelf sessions list 2>&1 || true)"
	expect_in "$out" "Upgrade check 1" "$what: session 1 is listed"
	expect_in "$out" "Upgrade check 2" "$what: session 2 is listed"
	out="$(as_user "$home" tinyelf sessions search answer-2-kept-across-upgrade 2>&1 || true)"
	expect_in "$out" "Upgrade check 2" "$what: a session's answer is found by search"
	out="$(as_user "$home" tinyelf mcp list 2>&1 || true)"
	expect_in "$out" "upgrade-check-server" "$what: the MCP server setting is kept"
	out="$(as_user "$home" tinyelf skills list 2>&1 || true)"
	expect_in "$out" "upgrade-check-skill" "$what: the skill is kept"
	out="$(as_user "$home" tinyelf tool list 2>&1 || true)"
	expect_in "$out" "upgradecheck_run" "$what: the user tool is kept"
}

# --- 4. removing keeps the user's data --------------------------------------
step "data made with the installed package outlives apt-get remove and purge"
user1="$work/user1"
make_data "$user1"
check_data "$user1" "installed"
as_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q tinyelf >&2
[ ! -e /usr/bin/tinyelf ] && ok "remove took /usr/bin/tinyelf away" || fail "/usr/bin/tinyelf is still there after remove"
[ -f "$user1/.config/tinyelf/sessions.db" ] && [ -f "$user1/.config/tinyelf/settings.json" ] &&
	ok "remove left the data folder" || fail "remove lost the data folder"
apt_install "$deb" >/dev/null
check_data "$user1" "reinstalled"
as_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q tinyelf >&2
[ -z "$(dpkg-query -W -f='${db:Status-Status}' tinyelf 2>/dev/null | grep -v not-installed)" ] &&
	ok "purge removed the package" || fail "after purge dpkg still has tinyelf: $(dpkg-query -W tinyelf 2>&1)"
[ -f "$user1/.config/tinyelf/sessions.db" ] && [ -f "$user1/.config/tinyelf/settings.json" ] &&
	ok "purge left the data folder (as README.md says)" || fail "purge lost the data folder"
as_root rm -f "$MARKER"

# --- 5. upgrade from the previous release -----------------------------------
step "upgrade: a package of $PREVIOUS_REV, used, then $version installed over it"
old_version="$(tinyelf_version "$PREVIOUS_REV")"
dpkg --compare-versions "$old_version" lt "$version" && ok "$old_version sorts before $version" || fail "$old_version does not sort before $version"
# gzip: the test's own package need not be small, and xz takes a minute or two.
RELEASE_DEB_COMPRESSION=gzip bash scripts/release.sh --rev "$PREVIOUS_REV" --only deb --out "$work/previous"
apt_install "$work/previous/tinyelf_${old_version}_amd64.deb"
[ "$(installed_version)" = "$old_version" ] && ok "the previous package ($old_version) is installed" || fail "installed version is $(installed_version), want $old_version"
user2="$work/user2"
make_data "$user2"
check_data "$user2" "previous release"
apt_install "$deb"
[ "$(installed_version)" = "$version" ] && ok "upgraded to $version" || fail "after the upgrade the installed version is $(installed_version)"
check_data "$user2" "after the upgrade"
backup="$user2/.config/tinyelf/sessions.schema-$PREVIOUS_SCHEMA.backup.db"
if [ -f "$backup" ]; then
	ok "the schema upgrade backed the database up first ($(basename "$backup"))"
	backup_sum="$(sha256sum "$backup")"
	check_data "$user2" "after another start"
	[ "$(sha256sum "$backup")" = "$backup_sum" ] && ok "the backup was made once" || fail "the backup was written again"
	[ "$(find "$user2/.config/tinyelf" -maxdepth 1 -name '*backup*' | wc -l)" = 1 ] || fail "more than one backup: $(ls "$user2/.config/tinyelf")"
else
	fail "no backup of the old database: $(ls "$user2/.config/tinyelf")"
fi
purge

# --- 6. the Windows installer -----------------------------------------------
step "the Windows installer"
if [ -f "$setup" ]; then
	kind="$(file -b "$setup")"
	expect_in "$kind" "PE32" "$(basename "$setup") is a PE32 executable"
	expect_in "$kind" "Nullsoft Installer" "$(basename "$setup") is an NSIS installer"
	listing="$(7z l "$setup" 2>&1 || true)"
	expect_in "$listing" "TinyElf.exe" "the installer holds the binary"
	expect_in "$listing" "uninstall.exe" "the installer holds the uninstaller"
	expect_in "$listing" "MicrosoftEdgeWebview2Setup.exe" "the installer holds the WebView2 bootstrapper"
	7z e -y -o"$work/windows" "$setup" TinyElf.exe >/dev/null
	# The value itself, not only the linker flag that the build info may quote.
	bare="$({ grep -aoF "$version" "$work/windows/TinyElf.exe" || true; } | wc -l)"
	quoted="$({ grep -aoF "version.version=$version" "$work/windows/TinyElf.exe" || true; } | wc -l)"
	if [ "$bare" -gt "$quoted" ]; then
		ok "the Windows binary carries version $version"
	else
		fail "the Windows binary does not carry version $version"
	fi
else
	fail "no $setup (bash scripts/release.sh builds it)"
fi

# --- 7. checksums --------------------------------------------------------------
step "dist/SHA256SUMS"
(cd dist && sha256sum --check --strict SHA256SUMS >&2) && ok "every sum in dist/SHA256SUMS matches" || fail "dist/SHA256SUMS does not match"
for f in dist/tinyelf_*; do
	grep -q "  $(basename "$f")\$" dist/SHA256SUMS && ok "SHA256SUMS lists $(basename "$f")" || fail "SHA256SUMS lacks $(basename "$f")"
done

if [ "$failures" -gt 0 ]; then
	die "$failures package checks failed"
fi
step "every package check passed in ${SECONDS}s"
