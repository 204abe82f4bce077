#!/usr/bin/env bash
# Build TinyElf's release artifacts into dist/ from a clean copy of a commit
# (git archive: nothing uncommitted, untracked or ignored gets in):
#
#   dist/tinyelf_VERSION_amd64.deb               Debian/Ubuntu package (dpkg-deb)
#   dist/tinyelf_VERSION_windows_amd64_setup.exe Windows installer (wails build -nsis)
#   dist/SHA256SUMS                              the SHA-256 of every artifact above
#
# VERSION comes from git describe (tinyelf_version in scripts/lib.sh).
# Installs the Debian packages the build needs first (the GTK/WebKit headers,
# dpkg-dev for dpkg-shlibdeps, nsis for makensis).
#
# Usage: bash scripts/release.sh [--rev REV] [--out DIR] [--only deb|windows]
#
#   --rev REV   the commit to build (default HEAD). A commit older than the
#               packaging files (build/linux, build/windows/installer) is
#               packaged with HEAD's, and the script says so.
#   --out DIR   where the artifacts go (default dist/); the artifacts an
#               earlier run left there are removed first, nothing else.
#   --only K    build only the .deb or only the Windows installer.
#
# RELEASE_DEB_COMPRESSION (default xz, the smallest download) is dpkg-deb's
# -Z; the package test builds its older package with gzip, which is faster.
#
# arm64: the .deb is amd64 only. A cross build needs cgo against arm64 GTK 3
# and WebKitGTK 4.1 (an aarch64 cross compiler and the arm64 -dev packages
# installed beside the amd64 ones); README.md says why that is not done here.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
caller_dir="$PWD"
cd "$TINYELF_ROOT"

rev=HEAD
out="$TINYELF_ROOT/dist"
only=""
while [ $# -gt 0 ]; do
	case "$1" in
	--rev) rev="${2:?--rev needs a commit}"; shift ;;
	--out)
		out="${2:?--out needs a folder}"; shift
		[[ "$out" == /* ]] || out="$caller_dir/$out" # relative to where it was run
		;;
	--only)
		only="${2:?--only needs deb or windows}"; shift
		case "$only" in deb | windows) ;; *) die "--only $only: want deb or windows" ;; esac
		;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see bash scripts/release.sh --help)" ;;
	esac
	shift
done

packages=("${TINYELF_BUILD_PACKAGES[@]}" dpkg-dev)
[ "$only" = deb ] || packages+=(nsis)
ensure_packages "${packages[@]}"
require_tool go "install Go 1.26 or later"
require_tool git "install git"

commit="$(git rev-parse --verify -q "$rev^{commit}")" || die "$rev is not a commit here"
version="$(tinyelf_version "$commit")"
[ -n "$version" ] || die "cannot tell the version of $rev"
if [ "$rev" = HEAD ] && [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	printf 'warning: the work tree has uncommitted changes; they are not in this release (it builds %s)\n' "${commit:0:7}" >&2
fi
# Timestamps in the packages are the commit's, so that a rebuild of the
# same commit gives the same files.
SOURCE_DATE_EPOCH="$(git log -1 --format=%ct "$commit")"
export SOURCE_DATE_EPOCH
release_date="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)"

work="$(mktemp -d "${TMPDIR:-/tmp}/tinyelf-release.XXXXXX")"
trap 'rm -rf "$work"' EXIT
src="$work/src"
mkdir -p "$src"

step "release $version from ${commit:0:12} (a clean copy in $src)"
git archive --format=tar "$commit" | tar -x -C "$src"
for f in build/linux/tinyelf.desktop build/linux/tinyelf.metainfo.xml.in build/linux/control.in \
	build/linux/copyright build/linux/tinyelf.1 build/windows/installer/project.nsi; do
	if [ ! -f "$src/$f" ]; then
		printf 'note: %s has no %s; packaging it with HEAD'"'"'s\n' "${commit:0:7}" "$f" >&2
		mkdir -p "$src/$(dirname "$f")"
		git show "HEAD:$f" >"$src/$f"
	fi
done

step "npm ci && npm run build (frontend)"
(cd "$src/frontend" && npm ci --no-audit --no-fund --loglevel=error && npm run build)

ldflags="$(tinyelf_ldflags "$version")"
mkdir -p "$out"
rm -f "$out"/tinyelf_*.deb "$out"/tinyelf_*_setup.exe "$out/SHA256SUMS"

# build_deb ARCH builds the desktop binary for ARCH and packages it.
build_deb() {
	local arch="$1" bin="$work/linux-$1/tinyelf" root="$work/deb-$1"
	step "go build (linux/$arch, tags $TINYELF_DESKTOP_TAGS, version $version)"
	mkdir -p "$(dirname "$bin")"
	(cd "$src" && CGO_ENABLED=1 GOOS=linux GOARCH="$arch" go build -trimpath -buildvcs=false -buildmode=pie \
		-tags "$TINYELF_DESKTOP_TAGS" -ldflags "$ldflags -s -w" -o "$bin" .)

	step "stage the package tree"
	install -D -m 0755 "$bin" "$root/usr/bin/tinyelf"
	install -D -m 0644 "$src/build/linux/tinyelf.desktop" "$root/usr/share/applications/tinyelf.desktop"
	install -d -m 0755 "$root/usr/share/metainfo"
	sed -e "s|@APP_ID@|$TINYELF_APP_ID|g" -e "s|@VERSION@|$version|g" -e "s|@DATE@|$release_date|g" \
		"$src/build/linux/tinyelf.metainfo.xml.in" >"$root/usr/share/metainfo/$TINYELF_APP_ID.metainfo.xml"
	chmod 0644 "$root/usr/share/metainfo/$TINYELF_APP_ID.metainfo.xml"
	(cd "$TINYELF_ROOT" && go run ./scripts/icons -src "$src/build/appicon.png" -out "$root/usr/share/icons/hicolor")
	install -D -m 0644 "$src/build/linux/copyright" "$root/usr/share/doc/tinyelf/copyright"
	install -d -m 0755 "$root/usr/share/man/man1"
	gzip -9n <"$src/build/linux/tinyelf.1" >"$root/usr/share/man/man1/tinyelf.1.gz"
	{
		printf 'tinyelf (%s) unstable; urgency=medium\n\n' "$version"
		printf '  * Built from commit %s.\n\n' "$commit"
		printf ' -- %s  %s\n' "$TINYELF_MAINTAINER" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
	} | gzip -9n >"$root/usr/share/doc/tinyelf/changelog.gz"
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -type f ! -path "$root/usr/bin/*" -exec chmod 0644 {} +

	step "dpkg-shlibdeps (the libraries the binary links, as package dependencies)"
	local depends
	depends="$(deb_depends "$root/usr/bin/tinyelf" "$arch")"
	for need in libgtk-3-0 libwebkit2gtk-4.1-0; do
		[[ ", $depends" == *", $need "* || ", $depends" == *", $need,"* || ", $depends" == *", $need" ]] ||
			die "the binary's dependencies lack $need: $depends"
	done

	install -d -m 0755 "$root/DEBIAN"
	local size
	size="$(du -k -s --apparent-size --exclude=DEBIAN "$root" | cut -f1)"
	sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$TINYELF_MAINTAINER|" \
		-e "s|@INSTALLED_SIZE@|$size|" -e "s|@DEPENDS@|$depends|" \
		"$src/build/linux/control.in" >"$root/DEBIAN/control"
	if grep -q '@[A-Z_]*@' "$root/DEBIAN/control"; then
		die "DEBIAN/control has a field left unfilled: $(grep '@[A-Z_]*@' "$root/DEBIAN/control")"
	fi
	(cd "$root" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
	chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

	local deb="$out/tinyelf_${version}_${arch}.deb"
	step "dpkg-deb --build → ${deb#"$TINYELF_ROOT"/}"
	dpkg-deb --root-owner-group -Z"${RELEASE_DEB_COMPRESSION:-xz}" --build "$root" "$deb" >/dev/null
	# dpkg-deb checked the control file's syntax; read back what it recorded.
	[ "$(dpkg-deb --field "$deb" Version)" = "$version" ] || die "$deb does not carry version $version"
}

# deb_depends BINARY ARCH prints the Depends line dpkg-shlibdeps derives from
# the shared libraries BINARY links (it needs a debian/control to read).
deb_depends() {
	local dir="$work/shlibdeps"
	mkdir -p "$dir/debian"
	printf 'Source: tinyelf\n\nPackage: tinyelf\nArchitecture: %s\n' "$2" >"$dir/debian/control"
	(cd "$dir" && dpkg-shlibdeps -O -e"$1" 2>"$dir/warnings") | sed -n 's/^shlibs:Depends=//p'
}

# build_windows builds the Windows binary and its NSIS installer with the
# Wails CLI of the Wails version go.mod pins.
build_windows() {
	local wails_version winver
	wails_version="$(cd "$src" && go list -m -f '{{.Version}}' github.com/wailsapp/wails/v2)"
	winver="$(windows_version "$version")"
	step "wails $wails_version build -nsis -platform windows/amd64 (version $version, Windows file version $winver)"
	# Windows wants four numbers; wails.json's productVersion is what the
	# Wails templates (the .exe's version resource, the installer) read.
	sed -i "s|\"productVersion\": *\"[^\"]*\"|\"productVersion\": \"$winver\"|" "$src/wails.json"
	grep -q "\"productVersion\": \"$winver\"" "$src/wails.json" || die "could not set productVersion in wails.json"
	# Go's Windows webview (go-webview2) needs no cgo; -s: the frontend is built.
	(cd "$src" && CGO_ENABLED=0 go run "github.com/wailsapp/wails/v2/cmd/wails@$wails_version" build -nocolour \
		-platform windows/amd64 -nsis -s -skipbindings -m -nosyncgomod -trimpath -ldflags "$ldflags" -o tinyelf.exe)
	local installer
	installer="$(find "$src/build/bin" -maxdepth 1 -name '*-amd64-installer.exe' | head -n 1)"
	[ -n "$installer" ] || die "wails build wrote no installer into build/bin"
	cp "$installer" "$out/tinyelf_${version}_windows_amd64_setup.exe"
}

# windows_version VERSION prints the four-part number Windows wants: the
# release's three, then the commits since it (or the commit count before the
# first tag).
windows_version() {
	local v="$1" base n=0
	base="$(printf '%s' "$v" | grep -oE '^[0-9]+(\.[0-9]+){0,2}')"
	while [ "$(printf '%s' "$base" | tr -cd . | wc -c)" -lt 2 ]; do base="$base.0"; done
	if [[ "$v" =~ [~+](dev\.)?([0-9]+)\.g[0-9a-f]+ ]]; then
		n="${BASH_REMATCH[2]}"
	fi
	printf '%s.%s\n' "$base" "$((n > 65535 ? 65535 : n))"
}

[ "$only" = windows ] || build_deb amd64
[ "$only" = deb ] || build_windows

step "SHA256SUMS"
(cd "$out" && find . -maxdepth 1 -type f \( -name 'tinyelf_*.deb' -o -name 'tinyelf_*_setup.exe' \) -printf '%f\n' |
	LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
cat "$out/SHA256SUMS" >&2
step "release $version built into ${out#"$TINYELF_ROOT"/}/ in ${SECONDS}s"
