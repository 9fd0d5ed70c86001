"""Where a kernel's main loop leaves the MFMA pipe idle, on llvm-mca's gfx950 timeline: the
loop of scripts/mca_loop.py (the steady state) run for 3 iterations with -timeline; the
second iteration is read. Each MFMA's dispatch cycle is taken from the timeline; the pipe is
idle for (distance to the next MFMA's dispatch - the MFMA's cycles: 8 for 32x32, 4 for
16x16, as lower_sched.c counts them) cycles, and the instructions dispatched in between are
what to look at. The last line is the idle at the trip's boundary (last MFMA of the second
iteration to the first of the third: the loop's latch, branch, wait and barrier).

    mca_idle.py CODE_OBJECT KERNEL

Example: gemm_nn_ragged_256x256 showed 20 idle cycles at the boundary, 10 of them the vote's
ballot and its test (lower_sched.c then took a ballot for pure), against gemm_nn_256x256's 11
(docs/codegen.md, "Loads straight to LDS in the in-range steady state").
"""
import re
import subprocess
import sys

import mca_loop


def timeline(body, iterations=3):
    """[(iteration, index, dispatch cycle, instruction)] from llvm-mca's timeline view"""
    p = subprocess.run([mca_loop.MCA, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx950",
                        "-iterations=%d" % iterations, "-timeline", "-timeline-max-cycles=1000000"],
                       input="\n".join(body) + "\n", capture_output=True, text=True)
    if p.returncode or "Timeline view" not in p.stdout:
        raise RuntimeError("llvm-mca: %s" % (p.stderr.strip()[:300] or "no timeline"))
    lines = p.stdout[p.stdout.index("Timeline view"):].splitlines()
    col0 = next(l for l in lines if l.startswith("Index")).index("0")
    rows = []
    for l in lines:
        m = re.match(r"\[(\d+),(\d+)\]", l)
        if m:
            d = l[col0:].find("D")
            rows.append((int(m.group(1)), int(m.group(2)), d, body[int(m.group(2))]))
    return rows


def mfma_cycles(text):
    return 8 if "32x32" in text else 4


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    ks = mca_loop.kernels(argv[0])
    if argv[1] not in ks:
        print("%s: no kernel %s in %s" % (sys.argv[0], argv[1], argv[0]), file=sys.stderr)
        return 1
    body = mca_loop.innermost_loop(ks[argv[1]])
    if body is None:
        print("%s: %s has no MFMA loop" % (sys.argv[0], argv[1]), file=sys.stderr)
        return 1
    rows = timeline(body)
    mf = [r for r in rows if "mfma" in r[3] and r[0] >= 1]
    total = 0
    for a, b in zip(mf, mf[1:]):
        idle = b[2] - a[2] - mfma_cycles(a[3])
        if idle <= 0 or a[0] > 1:
            continue
        between = [r[3].split()[0] for r in rows if (a[0], a[1]) < (r[0], r[1]) < (b[0], b[1])]
        where = "boundary" if b[0] != a[0] else "[%d]" % b[1]
        print("idle %3d before %-9s after: %s" % (idle, where, " ".join(between)))
        total += idle
    first = [r for r in rows if r[0] == 1][0][2]
    nxt = [r for r in rows if r[0] == 2][0][2]
    print("trip %d cycles, %d MFMAs, MFMA pipe idle %d cycles" % (nxt - first, sum("mfma" in t for t in body), total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
