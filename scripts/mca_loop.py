"""The innermost MFMA loop of each kernel of a gfx950 code object, on LLVM's own gfx950
scheduling model — the measure issue #20 states for "main loops as lean as hand-written
ones":

    llvm-mca-22 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -iterations=100

over the loop's instructions (branch target to back-branch, one wave), and again over its
MFMAs alone ("MFMA-bound", mca's own cycles); the efficiency is MFMA-bound / loop cycles
(AITER's 256x256 bf16 asm loop: 99.5%). The loop measured is the steady state: among the
innermost back-branch spans, the one with the most MFMAs, then one with loads (a pipeline's
drain has none), then the shortest; when no innermost span holds an MFMA, the spans around
them count too. Kernels without an MFMA loop are skipped. mca runs the span as straight-line
code: branches inside it (a predicated copy's element-wise path) count as if always taken.

    mca_loop.py CODE_OBJECT [KERNEL ...]      one line per kernel (all kernels by default)
"""
import re
import subprocess
import sys

OBJDUMP, MCA = "llvm-objdump-22", "llvm-mca-22"


def kernels(path):
    """{name: [(address, instruction text, branch target address or None)]}"""
    dis = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr", path],
                         capture_output=True, text=True, check=True).stdout
    out, name = {}, None
    for line in dis.splitlines():
        m = re.match(r"<([A-Za-z_][\w.]*)>:$", line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = re.match(r"\s+(\S.*?)\s*//\s*([0-9A-F]+):[^<]*(?:<([\w.]+)\+0x([0-9a-f]+)>)?\s*$", line)
        if name and m:
            tgt = m.group(4)
            out[name].append((int(m.group(2), 16), m.group(1), int(tgt, 16) if tgt and m.group(3) == name else None))
    return out


def innermost_loop(insns):
    """the steady-state MFMA loop: among the innermost loops (branch-target-to-back-branch
    spans holding no other), the one with the most MFMAs, then one that loads from memory
    (not a pipeline's drain), then the shortest"""
    if not insns:
        return None
    base = insns[0][0]
    where = {a: i for i, (a, _, _) in enumerate(insns)}
    spans = []
    for i, (a, text, tgt) in enumerate(insns):
        if tgt is None or not text.startswith(("s_cbranch", "s_branch")) or base + tgt > a:
            continue
        j = where.get(base + tgt)
        if j is not None:
            spans.append((j, i))
    inner = [(j, i) for j, i in spans if not any(j <= j2 and i2 <= i and (j2, i2) != (j, i) for j2, i2 in spans)]
    if not any("mfma" in t for j, i in inner for _, t, _ in insns[j:i + 1]):
        inner = spans     # the MFMAs sit in a loop around another: the shortest such loop
    best, key = None, None
    for j, i in inner:
        body = [t for _, t, _ in insns[j:i + 1]]
        nm = sum("mfma" in t for t in body)
        k = (nm, any(t.startswith(("buffer_load", "global_load")) for t in body), -len(body))
        if nm and (key is None or k > key):
            best, key = body, k
    return best


def mca_cycles(body):
    p = subprocess.run([MCA, "-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx950", "-iterations=100"],
                       input="\n".join(body) + "\n", capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", p.stdout)
    if p.returncode or not m:
        raise RuntimeError("llvm-mca: %s" % (p.stderr.strip()[:300] or "no Total Cycles"))
    return int(m.group(1))


def loop_stats(body):
    """(instructions, MFMAs, VALU, s_waitcnt, loop cycles, MFMA-bound cycles)"""
    mfma = [t for t in body if "mfma" in t]
    valu = sum(t.startswith("v_") and "mfma" not in t for t in body)
    wait = sum(t.startswith("s_waitcnt") for t in body)
    return len(body), len(mfma), valu, wait, mca_cycles(body), mca_cycles(mfma)


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    ks = kernels(argv[0])
    names = argv[1:] or list(ks)
    print("%-28s %6s %5s %5s %6s %9s %9s %7s" % ("kernel", "insns", "mfma", "valu", "waits",
                                                "cycles", "mfma-bnd", "eff"))
    for n in names:
        if n not in ks:
            print("%s: no kernel %s in %s" % (sys.argv[0], n, argv[0]), file=sys.stderr)
            return 1
        body = innermost_loop(ks[n])
        if body is None:
            continue
        ni, nm, nv, nw, cyc, mf = loop_stats(body)
        print("%-28s %6d %5d %5d %6d %9d %9d %6.1f%%" % (n, ni, nm, nv, nw, cyc, mf, 100.0 * mf / cyc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
