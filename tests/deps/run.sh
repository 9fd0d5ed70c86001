# tests/deps — scripts/install-deps.sh installs every package that make check uses.
#
# scripts/check.sh runs the tiers of the normal build with tests/deps/execlog.so preloaded and
# tests/deps/pysite on PYTHONPATH, which log every program executed (through PATH or by
# absolute path, scripts' "#!" interpreters included) and every Python module imported, into
# FLY_EXECLOG; it then runs this tier last. check.py maps each entry to its Debian package
# (dpkg -S) and fails unless the package is in the dependency closure of the installer's PKGS
# (or Essential/Priority: required, present on every Debian system). Run by hand: SKIP.
. "$FLY_TOP/tests/lib.sh"

if [ -z "${FLY_EXECLOG:-}" ] || [ ! -s "$FLY_EXECLOG" ]; then
	echo "SKIP: deps (no exec log: scripts/check.sh gathers one while it runs the tiers)"
	exit 0
fi
if ! command -v dpkg >/dev/null 2>&1; then
	echo "FAIL: deps/installer-provides-every-program (no dpkg: flyc is tested on Debian 12)"
	exit 0
fi
PKGS=$(sed -n 's/^PKGS="\(.*\)"$/\1/p' "$FLY_TOP/scripts/install-deps.sh")
tree="$FLY_TOP:${TMPDIR:-/tmp}"
PY=/usr/bin/python3

# the logger itself: an absolute path, a PATH lookup, a "#!" interpreter and a Python import
lib=${FLY_EXECLOG_LIB:-}
if [ -n "$lib" ] && [ -f "$lib" ]; then
	printf '#!/bin/sh\nexit 0\n' >"$TMP/script" && chmod +x "$TMP/script"
	FLY_EXECLOG="$TMP/self.log" FLY_EXECLOG_TREE="$tree" LD_PRELOAD="$lib" PYTHONPATH="$FLY_TOP/tests/deps/pysite" \
		sh -c '/usr/lib/llvm-22/bin/FileCheck --version >/dev/null; llvm-mc-22 --version >/dev/null; "$1"; /usr/bin/python3 -c "import json"' sh "$TMP/script" 2>/dev/null
	got=""
	for want in 'exec	/usr/lib/llvm-22/bin/FileCheck	' 'exec	/[a-z/]*bin/llvm-mc-22	' 'exec	/bin/sh	' 'pymod	json	'; do
		grep -q "^$want" "$TMP/self.log" 2>/dev/null || got="$got [$want]"
	done
	if [ -z "$got" ]; then pass deps/logger-sees-absolute-path-and-imports
	else fail deps/logger-sees-absolute-path-and-imports "not logged:$got" "$(cat "$TMP/self.log" 2>&1)"; fi
else
	fail deps/logger-sees-absolute-path-and-imports "FLY_EXECLOG_LIB does not name the built execlog.so"
fi

# the check fails on a program no package provides, and on one of a package the installer
# does not install (any installed package outside the allowed set, when there is one)
printf 'exec\t/usr/bin/flyc-deps-selftest-no-such-program\t-\n' >"$TMP/fake.log"
if out=$($PY "$FLY_TOP/tests/deps/check.py" "$TMP/fake.log" "$tree" $PKGS 2>&1); then
	fail deps/check-fails-on-unpackaged-program "check.py passed a program of no package:" "$out"
elif printf '%s\n' "$out" | grep -q 'flyc-deps-selftest-no-such-program is not provided by any Debian package'; then
	pass deps/check-fails-on-unpackaged-program
else
	fail deps/check-fails-on-unpackaged-program "$out"
fi
outside=$($PY "$FLY_TOP/tests/deps/check.py" --outside $PKGS 2>/dev/null)
if [ -n "$outside" ]; then
	printf 'exec\t%s\t-\n' "${outside#* }" >"$TMP/fake2.log"
	if out=$($PY "$FLY_TOP/tests/deps/check.py" "$TMP/fake2.log" "$tree" $PKGS 2>&1); then
		fail deps/check-fails-on-uninstalled-package "check.py passed ${outside#* } of ${outside%% *}:" "$out"
	elif printf '%s\n' "$out" | grep -q "is in package ${outside%% *}, which scripts/install-deps.sh does not install"; then
		pass "deps/check-fails-on-uninstalled-package (${outside%% *})"
	else
		fail deps/check-fails-on-uninstalled-package "$out"
	fi
else
	echo "SKIP: deps/check-fails-on-uninstalled-package (every installed package is one the installer pulls in)"
fi

# the real log of this make check
if out=$($PY "$FLY_TOP/tests/deps/check.py" "$FLY_EXECLOG" "$tree" $PKGS 2>&1); then
	pass "deps/installer-provides-every-program ($(printf '%s\n' "$out" | tail -n 1))"
else
	fail deps/installer-provides-every-program "$(printf '%s\n' "$out" | grep '^MISSING' | head -n 40)" \
		"(packages used:)" "$(printf '%s\n' "$out" | grep '^uses ' | head -n 60)"
fi
