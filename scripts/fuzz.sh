#!/bin/sh
# make fuzz: build and run every libFuzzer harness in tests/fuzz/ for N seconds each.
set -u
status=0
sh tests/fuzz/fuzz_loader.sh "${1:-60}" || status=1   # libflyrt loader (code objects, bundles, .flyc.meta)
exit $status
