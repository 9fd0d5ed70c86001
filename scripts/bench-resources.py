#!/usr/bin/python3
"""scripts/bench-resources.py [BUILD] — the static quality of every kernel of the operator
library in make bench: per kernel of each stdlib/ops/*.fly, compiled for each arch the
Makefile's OPS_LIB lists it with (NAME:ARCH: gfx950, and gfx1201 for gemm.fly's WMMA kernels
and attention_gfx1201.fly), VGPRs, AGPRs, VGPR/SGPR spills, scratch bytes, LDS bytes and
occupancy (waves per SIMD), from `flyc --resource-usage=json`. VGPR spills and scratch should be 0
for every kernel (the tiers check their own kernels: tests/gemm, tests/grouped,
tests/attention); SGPR spills go to VGPR lanes (v_writelane), not to memory."""
import glob
import json
import os
import subprocess
import sys

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
build = os.path.abspath(args[0] if args else os.path.join(top, "build"))
flyc = os.path.join(build, "bin", "flyc")

print("%-34s %5s %5s %11s %8s %8s %5s" % ("kernel", "VGPR", "AGPR", "spills V/S", "scratch", "LDS", "occ"))
bad = 0
ops_lib = []   # (name, arch) of the Makefile's OPS_LIB := / += lines
for line in open(os.path.join(top, "Makefile")):
    if line.startswith("OPS_LIB") and ("+=" in line or ":=" in line):
        ops_lib += [tuple(e.split(":")) for e in line.split("=", 1)[1].split()]
builds = [(src, arch) for src in sorted(glob.glob(os.path.join(top, "stdlib", "ops", "*.fly")))
          for arch in [a for n, a in ops_lib if n == os.path.basename(src)[:-4]] or ["gfx950"]]
for src, arch in builds:
    out = subprocess.run([flyc, src, "--offload-arch=" + arch, "--resource-usage=json", "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode:
        print("bench-resources: %s: flyc failed: %s" % (os.path.basename(src), out.stderr[-300:]))
        continue
    print("-- %s (%s)" % (os.path.relpath(src, top), arch))
    for r in json.loads(out.stdout or out.stderr):
        bad += r["vgpr_spills"] + r["scratch_bytes"] > 0
        print("%-34s %5d %5d %5d/%-5d %8d %8d %5d" % (r["kernel"], r["vgprs"], r["agprs"], r["vgpr_spills"],
              r["sgpr_spills"], r["scratch_bytes"], r["lds_bytes"], r["occupancy_waves_per_simd"]))
print("%d kernels with VGPR spills or scratch" % bad)
