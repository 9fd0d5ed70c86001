#!/usr/bin/python3
"""scripts/bench-resources.py [BUILD] — the static quality of every kernel of the operator
library in make bench: per kernel of each stdlib/ops/*.fly, compiled for each arch the
Makefile's OPS_LIB lists it for (NAME:ARCH: gfx950, and gfx1201 for gemm.fly's WMMA GEMM,
attention_gfx1201.fly and attention_bwd_gfx1201.fly), VGPRs, AGPRs, VGPR/SGPR spills, scratch bytes, LDS bytes and occupancy
(waves per SIMD), from `flyc --resource-usage=json`. VGPR spills and scratch should be 0
for every kernel (the tiers check their own kernels: tests/gemm, tests/grouped,
tests/attention); SGPR spills go to VGPR lanes (v_writelane), not to memory."""
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

def ops_lib():
    """(file, arch, flags) of the Makefile's OPS_LIB entries NAME:ARCH, in file order, with
    the file's OPS_FLAGS_NAME."""
    pairs, flags = [], {}
    for line in open(os.path.join(top, "Makefile")):
        if line.startswith("OPS_LIB") and ("+=" in line or ":=" in line):
            pairs += [tuple(e.split(":")) for e in line.split("=", 1)[1].split() if ":" in e]
        elif line.startswith("OPS_FLAGS_") and ":=" in line:
            k, v = line.split(":=", 1)
            flags[k.strip()[len("OPS_FLAGS_"):]] = v.split()
    return sorted((os.path.join(top, "stdlib", "ops", n + ".fly"), a, flags.get(n, [])) for n, a in pairs)


for src, arch, flags in ops_lib():
    out = subprocess.run([flyc, src, "--offload-arch=" + arch, "--resource-usage=json", "-o", os.devnull] + flags,
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
