#!/bin/sh
# make fuzz: build and run every libFuzzer harness in tests/fuzz/ for N seconds each.
set -u
echo "fuzz: no harnesses have landed yet"
exit 0
