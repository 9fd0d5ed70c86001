#!/usr/bin/python3
"""tests/lang: a builtin the checker accepts always lowers.

For every builtin of compiler/builtins.h whose lowering class is VALUE or LANE
(elementwise arithmetic, math, bits, lane values), calls with arguments drawn
from run-time scalars and register fragments of several types are put one per
kernel into a file. `flyc -fsyntax-only` says which calls the checker accepts
(an error's line names its kernel); the accepted ones must then compile for
gfx950 and for gfx1201 (a located "not on this target" refusal would count as
a failure too: none of these builtins is target-specific). Every builtin must
be accepted with at least one of the argument lists, so none is left untested.

Usage: builtins_lower.py FLYC BUILTINS_H TMPDIR; prints PASS/FAIL lines."""
import itertools, os, re, subprocess, sys

flyc, table, tmp = sys.argv[1:4]

rows = re.findall(r'X\((B_\w+), "(\w+)", (\d+), (\d+), "[^"]*", (\w+)\)', open(table).read())
rows = [(name, int(lo), int(hi)) for _, name, lo, hi, lower in rows if lower in ("VALUE", "LANE")]

# run-time operands: scalars of each kind, fragments of f32 and i32 (4 values a thread),
# a bool scalar and a bool fragment; type names for bitcast/order_key_inv
VALUES = ["a", "i", "u", "h", "bb", "p", "fv", "fi", "fp"]
TYPES = ["u32", "i32", "f32"]


def arglists(n):
    if n == 0:
        return [()]
    if n == 1:
        return [(v,) for v in VALUES + TYPES]
    lists = [tuple([v] * n) for v in VALUES]
    lists += [("fv",) + ("a",) * (n - 1), ("a",) * (n - 1) + ("fv",), ("fi",) + ("i",) * (n - 1)]
    lists += [(t,) + (v,) * (n - 1) for t in TYPES for v in ("a", "u", "i", "fv")]
    lists += [(v,) + (t,) * (n - 1) for t in TYPES for v in ("a", "u", "i", "fi")]
    if n == 3:
        lists += [("p", "a", "a"), ("fp", "fv", "fv"), ("fp", "fv", "a"), ("p", "fv", "a"), ("p", "i", "i")]
    return list(dict.fromkeys(lists))


HEAD = ("kernel k%d(x: global f32[(N):(1)], xi: global i32[(N):(1)], N: i32, a: f32, i: i32, u: u32,"
        " h: f16, bb: bf16)\n  block(64) grid(1)\n  requires(N %% 256 == 0)\n{\n"
        "  let thr = (64, 4):(4, 1);\n"
        "  let fv = fragment_like(local_partition(x, thr, thread.x));\n"
        "  copy(local_partition(x, thr, thread.x), fv);\n"
        "  let fi = fragment_like(local_partition(xi, thr, thread.x));\n"
        "  copy(local_partition(xi, thr, thread.x), fi);\n"
        "  let p = a < 1.0;\n  let fp = fv < a;\n")


def source(calls):
    text, lines = [], {}
    for k, call in enumerate(calls):
        start = sum(t.count("\n") for t in text) + 1
        text.append(HEAD % k + "  let r = %s;\n}\n" % call)
        end = sum(t.count("\n") for t in text)
        for ln in range(start, end + 1):
            lines[ln] = k
    return "".join(text), lines


def run(args):
    return subprocess.run([flyc] + args, capture_output=True, text=True)


def main():
    failed = 0
    calls = [(name, "%s(%s)" % (name, ", ".join(al))) for name, lo, hi in rows
             for n in range(lo, hi + 1) for al in arglists(n)]
    accepted = []
    for b in range(0, len(calls), 16):
        batch = calls[b:b + 16]
        src, lines = source([c for _, c in batch])
        path = os.path.join(tmp, "lower-check.fly")
        open(path, "w").write(src)
        out = run(["-fsyntax-only", "-fno-color-diagnostics", path])
        if "too many errors" in out.stdout + out.stderr:
            print("FAIL: lang/builtins-lower: the error limit was reached; use smaller batches")
            return 1
        bad = {lines[int(m)] for m in re.findall(r"lower-check\.fly:(\d+):\d+: error", out.stdout + out.stderr)}
        accepted += [batch[k] for k in range(len(batch)) if k not in bad]
    for name, lo, hi in rows:
        if not any(n == name for n, _ in accepted):
            print("FAIL: lang/builtins-lower/%s: the checker accepts none of the argument lists tried" % name)
            failed += 1
    src, lines = source([c for _, c in accepted])
    path = os.path.join(tmp, "lower-all.fly")
    open(path, "w").write(src)
    for arch in ("gfx950", "gfx1201"):
        out = run([path, "--offload-arch=" + arch, "-fno-color-diagnostics", "-o", os.path.join(tmp, "lower.co")])
        errs = re.findall(r"lower-all\.fly:(\d+):\d+: error: (.*)", out.stdout + out.stderr)
        if out.returncode:
            failed += 1
            shown = ["%s: %s" % (accepted[lines[int(ln)]][1], msg) for ln, msg in errs[:10]]
            print("FAIL: lang/builtins-lower/%s: %d accepted calls, code generation failed:\n    %s" %
                  (arch, len(accepted), "\n    ".join(shown or [(out.stdout + out.stderr).strip()[:2000]])))
        else:
            print("PASS: lang/builtins-lower/%s (%d builtins, %d accepted calls of %d tried, all lower)" %
                  (arch, len(rows), len(accepted), len(calls)))
    return 1 if failed else 0


sys.exit(main())
