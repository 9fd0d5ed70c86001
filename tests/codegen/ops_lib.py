"""The kernel library under the sanitized flyc, one kernel per template (ops-lib-san.test).

`make check` copies the plain build's kernel library into the sanitized build (the same
bytes; docs/testing.md "What the sanitized build runs"). This compiles, with the flyc
given (the sanitized one), every stdlib/ops file of the Makefile's OPS_LIB for its arches and
OPS_FLAGS_NAME, keeping of each `kernel` its last export (in gemm.fly e.g. the f16, 256x256,
LDS-epilogue gemm_nt and the f16-in, f32-out ragged kernels: the most parameters away from
the defaults), or the kernel itself when nothing exports it. Prints one line per file:
"ok FILE ARCHES: KERNELS" or "FAIL FILE ...: exit status / sanitizer report", then "done N".
Usage: ops_lib.py FLYC TOP OUTDIR
"""
import os
import re
import subprocess
import sys


def ops_lib(top):
    """[(name, [arches], [flags])] from the Makefile's OPS_LIB and OPS_FLAGS_NAME lines"""
    entries, flags = [], {}
    for line in open(os.path.join(top, "Makefile")):
        m = re.match(r"OPS_LIB\s*[:+]?=\s*(.*)", line)
        if m:
            entries += m.group(1).split()
        m = re.match(r"OPS_FLAGS_(\w+)\s*:?=\s*(.*)", line)
        if m:
            flags[m.group(1)] = m.group(2).split()
    files = {}
    for e in entries:
        name, arch = e.split(":")
        files.setdefault(name, []).append(arch)
    return [(n, a, flags.get(n, [])) for n, a in files.items()]


def representatives(text):
    """each kernel's last export name, or the kernel's own name without one"""
    text = re.sub(r"//[^\n]*", "", text)
    exports = re.findall(r"^export\s+(\w+)[^;]*?\bas\s+(\w+)\s*;", text, re.M | re.S)
    out = []
    for k in re.findall(r"^kernel\s+(\w+)", text, re.M):
        names = [x for kk, x in exports if kk == k]
        out.append(names[-1] if names else k)
    return out


def main():
    flyc, top, outdir = sys.argv[1:4]
    bad = n = 0
    for name, arches, flags in ops_lib(top):
        src = os.path.join(top, "stdlib", "ops", name + ".fly")
        reps = representatives(open(src).read())
        cmd = [flyc, src, "--kernel=" + ",".join(reps)] + ["--offload-arch=" + a for a in arches]
        cmd += flags + ["-o", os.path.join(outdir, name + ".co")]
        p = subprocess.run(cmd, capture_output=True, text=True)
        n += 1
        what = "%s %s: %s" % (name, ",".join(arches), ",".join(reps))
        if p.returncode != 0 or re.search(r"Sanitizer|runtime error", p.stderr):
            bad += 1
            print("FAIL %s: exit %d\n%s" % (what, p.returncode, p.stderr[-3000:]))
        else:
            print("ok " + what)
    print("done %d files, %d failed" % (n, bad))


if __name__ == "__main__":
    main()
