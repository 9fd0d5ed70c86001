#!/bin/sh
# make demo: flyc's main job on its default example. Grows with the project.
set -u
build=${1:-build}
echo "demo: the simulator and code generation have not landed yet; 'flyc --version':"
"$build/bin/flyc" --version
exit 1
