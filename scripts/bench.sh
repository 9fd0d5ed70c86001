#!/bin/sh
# make bench: benchmarks, each printed with a ratio against a baseline measured in the same run.
set -u
build=${1:-build}
echo "bench: no benchmarks have landed yet"
exit 0
