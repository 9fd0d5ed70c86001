#!/bin/sh
# Install the Debian 12 packages flyc needs to build and test, and nothing else
# (SQLite and DLPack for libflyrt's tuning database and operator API; CMake, pkg-config,
# torch and numpy for the operator and install tests).
# Idempotent and quick when everything is present: each package is checked with
# dpkg-query first and apt-get runs only for the missing ones.
#   scripts/install-deps.sh [--stamp FILE]   (FILE is touched on success)
#
# PKGS is every package a build, test, script or benchmark uses: make check proves it
# (tests/deps: each program its tiers execute and each Python module they import must come
# from a package in the dependency closure of this list, or from the base system).
#   build:   git (the clone, and the revision in flyc --version), llvm-22-dev (llvm-config-22, libLLVM), re2c, bison, gcc, make, libcmocka-dev
#   tests:   llvm-22-tools (FileCheck, lit), lld-22 (ld.lld), clang-22 and libclang-rt-22-dev
#            (OpenCL test kernels, make fuzz), clang-tools-22 (clang-offload-bundler-22),
#            python3, python3-numpy, python3-torch, libdlpack-dev (torch/DLPack bindings),
#            librsvg2-bin (rsvg-convert draws flyc's SVGs), g++ (C++ layout oracles), and
#            cmake, pkg-config (the installed package's consumers), libsqlite3-dev (the tuning database)
set -u
PKGS="git llvm-22-dev lld-22 clang-22 llvm-22-tools libclang-rt-22-dev clang-tools-22 re2c bison libcmocka-dev make gcc g++ python3 python3-numpy python3-torch libdlpack-dev libsqlite3-dev cmake pkg-config librsvg2-bin"
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
			nocand=""
			for p in $missing; do
				apt-cache policy "$p" 2>/dev/null | grep -q 'Candidate: [0-9]' || nocand="$nocand $p"
			done
			if [ -n "$nocand" ]; then
				echo "install-deps: no apt source offers:$nocand" >&2
				echo "install-deps: LLVM 22 comes from the bookworm-security suite, which a standard Debian 12" >&2
				echo "install-deps: lists in /etc/apt/sources.list.d/debian.sources (a debootstrap root lacks it):" >&2
				echo "install-deps:   deb http://deb.debian.org/debian-security bookworm-security main" >&2
			fi
			echo "install-deps: check the network and the apt sources, then run 'make install-deps'" >&2
			exit 1
		fi
	fi
fi

if [ -n "$stamp" ]; then
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
exit 0
