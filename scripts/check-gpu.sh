#!/bin/sh
# Tests that need a real AMD GPU. Without one (no /dev/kfd or no HIP runtime) they are
# skipped with a message and the exit status is 0.
set -u
build=${1:-build}
if [ ! -e /dev/kfd ]; then
	echo "check-gpu: SKIP: no AMD GPU here (/dev/kfd is absent); nothing to run"
	exit 0
fi
if [ -x "$build/bin/flyrt-gpu-tests" ]; then
	exec "$build/bin/flyrt-gpu-tests"
fi
echo "check-gpu: SKIP: a GPU is present but no GPU tests are built yet"
exit 0
