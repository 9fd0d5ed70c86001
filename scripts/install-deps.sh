#!/bin/sh
# Install the Debian 12 packages flyc needs to build and test, and nothing else
# (SQLite and DLPack for libflyrt's tuning database and operator API; CMake, pkg-config,
# torch and numpy for the operator and install tests).
# Idempotent and quick when everything is present: each package is checked with
# dpkg-query first and apt-get runs only for the missing ones.
#   scripts/install-deps.sh [--stamp FILE]   (FILE is touched on success)
set -u
PKGS="llvm-22-dev lld-22 clang-22 llvm-22-tools libclang-rt-22-dev re2c bison libcmocka-dev make gcc python3 libsqlite3-dev libdlpack-dev cmake pkg-config python3-torch python3-numpy"
stamp=""
[ "${1:-}" = "--stamp" ] && stamp="${2:-}"

# Fast path: the stamp is newer than this script and the key tools still answer.
if [ -n "$stamp" ] && [ -f "$stamp" ] && [ "$stamp" -nt "$0" ] &&
   command -v llvm-config-22 >/dev/null 2>&1 && command -v re2c >/dev/null 2>&1 &&
   command -v bison >/dev/null 2>&1; then
	exit 0
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	echo "install-deps: missing Debian packages:$missing" >&2
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: not root; run as root:  apt-get install -y$missing" >&2
		exit 1
	fi
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "install-deps: no apt-get here; flyc is built on Debian 12. Install:$missing" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends $missing >&2; then
		echo "install-deps: apt-get install failed; refreshing package lists" >&2
		if ! apt-get update >&2 || ! apt-get install -y --no-install-recommends $missing >&2; then
			echo "install-deps: could not install:$missing" >&2
			echo "install-deps: check the network and the apt sources, then run 'make install-deps'" >&2
			exit 1
		fi
	fi
fi

if [ -n "$stamp" ]; then
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
exit 0
