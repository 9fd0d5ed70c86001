#!/bin/sh
# scripts/cute-oracle/gen.sh — regenerate tests/layout/oracle/cute.tsv from
# NVIDIA CuTe (flyc issue #13).  CI never runs this; it needs a CUTLASS
# checkout (nothing of it is committed) and g++-12.
#
#   scripts/cute-oracle/gen.sh CUTLASS_DIR [gen.py options: --jobs N --batch N --only OP,...]
#
# CUTLASS_DIR holds include/cute.  Its tag and commit are read from
# CUTLASS_DIR/ORACLE-SOURCE ("v4.7.0 (commit <hash>)") or, in a git checkout,
# from git.  The data in the repository was made from v4.7.0 (commit
# dcf215af68a2d08d305076c152a06f201728cd53), exported from a clone with
#   git --git-dir=CLONE archive v4.7.0 include | tar -x -C /tmp/cutlass-v4.7.0
#   echo "v4.7.0 (commit $(git --git-dir=CLONE rev-parse 'v4.7.0^{commit}'))" > /tmp/cutlass-v4.7.0/ORACLE-SOURCE
# Afterwards run `sh tests/layout/oracle/compare.sh --update-known` (with
# FLY_TOP and FLY_BUILD set) only if the mismatch list must be rebuilt.
set -e
[ $# -ge 1 ] || { echo "usage: $0 CUTLASS_DIR [gen.py options]" >&2; exit 2; }
dir=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$dir/include/cute/layout.hpp" ] || { echo "$0: $dir/include/cute/layout.hpp not found" >&2; exit 1; }
command -v g++-12 >/dev/null || { echo "$0: g++-12 not found" >&2; exit 1; }
if [ ! -f "$dir/ORACLE-SOURCE" ] && git -C "$dir" rev-parse HEAD >/dev/null 2>&1; then
	echo "$(git -C "$dir" describe --tags --always) (commit $(git -C "$dir" rev-parse HEAD))" > "$dir/ORACLE-SOURCE"
fi
exec /usr/bin/python3 "$here/gen.py" --cutlass "$dir" "$@"
