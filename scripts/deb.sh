#!/bin/sh
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# Build the Debian packages (debian/): xrx and libxrx-dev, with
# dpkg-buildpackage -us -uc -b in a copy of the source tree, so the build
# starts as from a fresh clone and never uses or touches the tree's own
# build folders. The .deb, .buildinfo and .changes files land in OUTDIR.
#
#   scripts/deb.sh [OUTDIR]      (make deb: OUTDIR is build/deb)
set -eu
cd "$(dirname "$0")/.."

out=${1:-build/deb}
for t in dpkg-buildpackage dh; do
	if ! command -v $t >/dev/null; then
		echo "deb: $t missing; install dpkg-dev and debhelper (scripts/deps.sh)" >&2
		exit 1
	fi
done

ver=$(dpkg-parsechangelog -S Version)
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/xrx-deb.XXXXXX")
trap 'rm -rf "$stage"' EXIT
src=$stage/xrx-$ver
mkdir "$src"

# The tree as it is (uncommitted changes included), without version
# control or build output; debian/rules clean removes the rest.
tar -c --exclude-vcs --exclude=./build --exclude=./build-san \
	--exclude=./build-fuzz . | tar -x -C "$src"

(cd "$src" && dpkg-buildpackage -us -uc -b -j"$(nproc)")
for f in "$stage"/*.deb "$stage"/*.ddeb "$stage"/*.buildinfo "$stage"/*.changes; do
	if [ -e "$f" ]; then mv "$f" "$out/"; fi
done
echo "deb: packages in $out"
ls "$out"
