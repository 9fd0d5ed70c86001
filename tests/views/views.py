#!/usr/bin/python3
"""tests/views: tensor operations of language.md 9.1-9.2 on run-time tensors,
run on the simulator and compared with `flyc eval` of the same layout.

Each case views SRC (a global i32 tensor with run-time shape and strides,
filled with 0, 1, 2, ...: an element's value is its offset) through one
operation, and a kernel (64 threads, 256 for a tiled MMA's partitions; each computing the
same view and writing the same values) copies element i of the view to out[i].
The expected offsets come from `flyc eval` of the same operation with the
run-time names bound to the case's values, evaluated here colexicographically.
out is filled with -1 past the view's size (no stray writes)."""
import os, re, subprocess, sys, tempfile

top, build = os.environ["FLY_TOP"], os.environ["FLY_BUILD"]
FLYC = os.path.join(build, "bin", "flyc")
SIM = os.path.join(build, "bin", "flyc-sim")

# (name, source layout with names M N P sm sn sp k, operation on `src`, values
#  [, the same operation as `flyc eval` spells it when that differs: slices are
#  T[c] in .fly and (0 o L)(c) of the view in `flyc eval`])
CASES = [
    ("zipped_divide-2d", "(M, N):(sm, sn)", "zipped_divide(src, [4:1, 2:1])", dict(M=8, N=6, sm=1, sn=9)),
    ("zipped_divide-rowmajor", "(M, N):(sm, sn)", "zipped_divide(src, [2:1, 4:1])", dict(M=4, N=8, sm=8, sn=1)),
    ("logical_divide-1d", "(M):(sm)", "logical_divide(src, 4:1)", dict(M=12, sm=3)),
    ("logical_divide-2d", "(M, N):(sm, sn)", "logical_divide(src, [2:1, 3:1])", dict(M=4, N=6, sm=6, sn=1)),
    ("tiled_divide", "(M, N):(sm, sn)", "tiled_divide(src, [2:1, 2:1])", dict(M=4, N=6, sm=1, sn=5)),
    ("flat_divide", "(M, N):(sm, sn)", "flat_divide(src, [2:1, 3:1])", dict(M=6, N=6, sm=7, sn=1)),
    ("local_partition-2d", "(M, N):(sm, sn)", "local_partition(src, (4, 2):(2, 1), 5)", dict(M=8, N=8, sm=8, sn=1)),
    ("local_partition-3d", "(M, N, P):(sm, sn, sp)", "local_partition(src, (2, 2, 2):(1, 2, 4), 3)",
     dict(M=4, N=4, P=2, sm=1, sn=4, sp=16)),
    ("local_tile-nested", "(M, (4, N)):(sm, (sn, sp))", "local_tile(src, (2, 8), (1, _))", dict(M=6, N=4, sm=1, sn=6, sp=24)),
    ("local_tile-3d", "(M, N, P):(sm, sn, sp)", "local_tile(src, (2, 3), (1, _))", dict(M=4, N=6, P=2, sm=1, sn=4, sp=24)),
    ("local_partition-tv-1d", "(M):(sm)", "local_partition(src, (4, 3):(3, 1), k)", dict(M=12, sm=3, k=2),
     "(0 o composition(src, (4,3):(3,1)))(k, _)"),
    ("local_partition-tv-1d-last", "(M):(sm)", "local_partition(src, (4, 3):(1, 4), k)", dict(M=12, sm=5, k=3),
     "(0 o composition(src, (4,3):(1,4)))(k, _)"),
    ("composition-1d", "(M):(sm)", "composition(src, (4, 3):(3, 1))", dict(M=12, sm=2)),
    ("composition-nested-tiler", "(M, (4, N)):(sm, (sn, sp))", "composition(src, [3:2, (2, 2):(1, 4)])",
     dict(M=6, N=2, sm=1, sn=6, sp=24)),
    ("coalesce-3d", "(4, (2, N), P):(1, (4, 8), sp)", "coalesce(src)", dict(N=3, P=2, sp=40)),
    ("coalesce-profile", "(M, (2, 4)):(sm, (1, 2))", "coalesce(src, (1, (1, 1)))", dict(M=3, sm=8)),
    # (`flyc eval` has no coalesce of a view: compared with the tile, the same function)
    ("coalesce-of-tile", "(M, N):(1, M)", "coalesce(local_tile(src, (4, 2), (1, k)))", dict(M=8, N=6, k=2),
     "local_tile(src, (4, 2), (1, k))"),
    ("slice-3d", "(M, N, P):(sm, sn, sp)", "src[1, _, k]", dict(M=4, N=5, P=3, sm=1, sn=4, sp=20, k=2),
     "(0 o src)(1, _, k)"),
    ("slice-3d-two-holes", "(M, N, P):(sm, sn, sp)", "src[_, k, _]", dict(M=3, N=4, P=2, sm=8, sn=1, sp=24, k=3),
     "(0 o src)(_, k, _)"),
    ("slice-nested-flat-coord", "(M, (4, N)):(sm, (sn, sp))", "src[_, k]", dict(M=6, N=3, sm=1, sn=6, sp=24, k=5),
     "(0 o src)(_, k)"),
    ("slice-nested-hole", "(M, (4, N), P):(sm, (sn, sp), 96)", "src[k, (_, 2), _]",
     dict(M=4, N=3, P=2, sm=1, sn=4, sp=16, k=2), "(0 o src)(k, (_, 2), _)"),
    ("slice-of-tile", "(M, N):(sm, sn)", "local_tile(src, (2, 4), (1, k))[_, 3]", dict(M=6, N=8, sm=1, sn=6, k=1),
     "(local_tile(src, (2, 4), (1, k)))(_, 3)"),
]


def mode_offset(shape, stride, c):
    """offset of 1-D coordinate c in a (possibly nested) mode, colexicographic"""
    if not isinstance(shape, list):
        return c * stride
    o = 0
    for s, d in zip(shape, stride):
        n = 1
        for e in flat(s):
            n *= e
        o += mode_offset(s, d, c % n)
        c //= n
    return o


def thread_part(ts, td, vs):
    """Expected offsets of partition_S of tiled_copy(threads=ts:td, values=vs) for thread k:
    CuTe's raked make_tiled_copy, from its definition (not from flyc): along mode m the thread
    coordinate is (k / td_m) % ts_m and owns elements t_m*vs_m + v_m of every tile of ts_m*vs_m;
    the view is (V, R_0, R_1, ...), walked colexicographically."""
    def want(vals, shape, stride):
        k, r = vals["k"], len(ts)
        size = lambda x: eval("*".join(map(str, flat(list(x) if isinstance(x, tuple) else x))) or "1")
        reps = [size(shape[m]) // (ts[m] * vs[m]) for m in range(r)]
        t = [(k // td[m]) % ts[m] for m in range(r)]
        out = []
        nv = size(vs)
        for i in range(nv * size(reps)):
            v, rest = [], i % nv
            for m in range(r):
                v.append(rest % vs[m]); rest //= vs[m]
            rr, j = [], i // nv
            for m in range(r):
                rr.append(j % reps[m]); j //= reps[m]
            c = [rr[m] * ts[m] * vs[m] + t[m] * vs[m] + v[m] for m in range(r)]
            out.append(sum(mode_offset(shape[m], stride[m], c[m]) for m in range(r)))
        return out
    return want


TC = "tiled_copy(gfx950.global_load_b32, threads=%s, values=%s).slice(k).partition_S(src)"
# (static extents: a tiled copy's partition needs sizes that are multiples of its tile)
CASES += [
    ("partition_S-2d", "(16, 4):(sm, sn)", TC % ("(4, 2):(2, 1)", "(2, 1):(1, 2)"), dict(sm=1, sn=16, k=5),
     thread_part((4, 2), (2, 1), (2, 1))),
    ("partition_S-2d-colmajor-threads", "(4, 16):(sm, sn)", TC % ("(2, 4):(1, 2)", "(1, 2):(2, 1)"),
     dict(sm=16, sn=1, k=6), thread_part((2, 4), (1, 2), (1, 2))),
    ("partition_S-nested", "((2, 4), 8):((sm, sn), sp)", TC % ("(2, 2):(1, 2)", "(2, 2):(1, 2)"),
     dict(sm=1, sn=2, sp=8, k=3), thread_part((2, 2), (1, 2), (2, 2))),
    ("partition_S-3d", "(8, 4, 2):(sm, sn, sp)", TC % ("(2, 2, 2):(4, 1, 2)", "(2, 1, 1):(1, 2, 2)"),
     dict(sm=1, sn=8, sp=32, k=6), thread_part((2, 2, 2), (4, 1, 2), (2, 1, 1))),
]


def atom_decl(name):
    """shape (M, N, K), threads and the (lane, value) layouts of stdlib/gfx950.fly's atom NAME:
    the atom's definition, read as data"""
    text = open(os.path.join(top, "stdlib", "gfx950.fly")).read()
    body = re.search(r"atom\s+%s\s*:\s*mma\s*\{(.*?)\n\}" % name, text, re.S).group(1)
    f = dict((m.group(1), m.group(2).strip()) for m in re.finditer(r"(\w+)\s*=\s*([^;]+);", body))
    return (tuple(int(x) for x in f["shape"].strip("()").split(",")), int(f["threads"]),
            {op: parse(f[op.lower() + "_layout"].replace(" ", ""))[1:] for op in "ABC"})


def mma_part(atom, op, waves):
    """Expected offsets of tiled_mma(atom, waves=(WM, WN)).slice(k).partition_OP(src), from the
    definition (docs/codegen.md "Tiled MMAs"), not from flyc: lane l = k % threads of wave
    w = k / threads, wm = w % WM, wn = (w / WM) % WN; the TV layout maps (l, v) to the
    column-major index i of the P x Q tile (p = i % P, q = i / P); value v of repeat (rp, rq)
    is src(p + (rp*WP + wp)*P, q + (rq*WQ + wq)*Q); the view (V, RP, RQ) walked
    colexicographically. A: P x Q = M x K over WM waves; B: N x K over WN; C: M x N over WM x WN."""
    size = lambda x: eval("*".join(map(str, flat(x))) or "1")
    def want(vals, shape, stride):
        (M, N, K), threads, tv = atom_decl(atom)
        (ts, td), (vs, vd) = [(tv[op][0][i], tv[op][1][i]) for i in range(2)]
        P, Q = {"A": (M, K), "B": (N, K), "C": (M, N)}[op]
        WP, WQ = {"A": (waves[0], 1), "B": (waves[1], 1), "C": waves}[op]
        k = vals["k"]
        l, w = k % threads, k // threads
        wm, wn = w % waves[0], (w // waves[0]) % waves[1]
        wp, wq = {"A": (wm, 0), "B": (wn, 0), "C": (wm, wn)}[op]
        V = size(vs)
        RP, RQ = size(shape[0]) // (P * WP), size(shape[1]) // (Q * WQ)
        out = []
        for j in range(V * RP * RQ):
            v, rp, rq = j % V, (j // V) % RP, j // (V * RP)
            i = mode_offset(ts, td, l) + mode_offset(vs, vd, v)
            row, col = i % P + (rp * WP + wp) * P, i // P + (rq * WQ + wq) * Q
            out.append(mode_offset(shape[0], stride[0], row) + mode_offset(shape[1], stride[1], col))
        return out
    return want


MMA = "tiled_mma(gfx950.%s, waves=%s).slice(k).partition_%s(src)"
# (static extents, multiples of the tiled tile; run-time strides; nested modes)
CASES += [
    ("partition_A-16x16x16-2x2-waves", "(64, 32):(sm, sn)", MMA % ("mfma_f32_16x16x16_bf16", "(2, 2, 1)", "A"),
     dict(sm=37, sn=1, k=197), mma_part("mfma_f32_16x16x16_bf16", "A", (2, 2))),
    ("partition_B-32x32x8-nested", "((2, 32), (4, 2)):((sm, sn), (sp, 1))",
     MMA % ("mfma_f32_32x32x8_bf16", "(2, 2, 1)", "B"), dict(sm=8, sn=16, sp=2, k=101),
     mma_part("mfma_f32_32x32x8_bf16", "B", (2, 2))),
    ("partition_C-32x32-nested-2x2-waves", "((4, 16), (2, (8, 8))):((1, sm), (sn, (sp, 4)))",
     MMA % ("mfma_f32_32x32x16_bf16", "(2, 2, 1)", "C"), dict(sm=4, sn=128, sp=600, k=178),
     mma_part("mfma_f32_32x32x16_bf16", "C", (2, 2))),
    ("partition_A-16x16x32-colmajor", "(32, (8, 8)):(sm, (sn, sp))", MMA % ("mfma_f32_16x16x32_bf16", "(2, 1, 1)", "A"),
     dict(sm=1, sn=32, sp=256, k=77), mma_part("mfma_f32_16x16x32_bf16", "A", (2, 1))),
]
NAMES = ["M", "N", "P", "sm", "sn", "sp", "k"]


def parse(s):
    """'OFF o S:D' or 'S:D' (static) -> (off, shape, stride) as nested lists."""
    off = 0
    if " o " in s:
        o, s = s.split(" o ", 1)
        off = int(o)
    sh, st = s.split(":")
    conv = lambda t: eval(t.replace("(", "[").replace(")", ",]"))
    return off, conv(sh), conv(st)


def flat(x):
    return [y for e in x for y in flat(e)] if isinstance(x, list) else [x]


def offsets(off, shape, stride):
    s, d = flat(shape), flat(stride)
    n = 1
    for e in s:
        n *= e
    r = []
    for i in range(n):
        o, k = off, i
        for e, st in zip(s, d):
            o += (k % e) * st
            k //= e
        r.append(o)
    return r


# size, get, shape, stride, rank, depth, idx2crd of run-time views in a kernel body, each
# compared with `flyc eval` of the same query on the layout with the names bound (a pair:
# the .fly spelling, then `flyc eval`'s)
QUERIES = [
    ("(M, (4, N), P):(sm, (sn, sp), 96)", ["size(src)", "size(src, 1)", "get(shape(src), 0)", "get(shape(src), 1, 1)",
                                           "get(stride(src), 1, 0)", "size(get(shape(src), 1))", "rank(src)", "depth(src)",
                                           "get(stride(src), 2)"], dict(M=5, N=3, P=2, sm=1, sn=5, sp=20)),
    ("(M, N):(sm, sn)", ["size(local_tile(src, (2, 3), (1, _)))", "get(shape(local_tile(src, (2, 3), (1, _))), 2)",
                         "rank(zipped_divide(src, [2:1, 3:1]))", "get(stride(logical_divide(src, [2:1, 3:1])), 1, 1)",
                         "get(idx2crd(k, shape(src)), 1)", "size(coalesce(src))",
                         ("size(src[k, _])", "size((0 o src)(k, _))"),
                         ("size(fragment_like(local_tile(src, (2, 3), (1, 1))))", "size(local_tile(src, (2, 3), (1, 1)))")],
     dict(M=4, N=9, sm=1, sn=4, k=7)),
]


def run_queries(tmp):
    failed = 0
    for n, (src, qs, vals) in enumerate(QUERIES):
        used = [m for m in NAMES if m in vals]
        lets = ["let %s = %d" % (m, vals[m]) for m in used]
        lay = src.replace(" ", "")
        want = []
        for q in qs:
            q = q[1] if isinstance(q, tuple) else q
            ev = subprocess.run([FLYC, "eval"] + lets + [q.replace("src", lay)], capture_output=True, text=True)
            want.append(int(ev.stdout.strip().splitlines()[-1]) if not ev.returncode else None)
        qs = [q[0] if isinstance(q, tuple) else q for q in qs]
        params = ", ".join("%s: i32" % m for m in used)
        body = "".join("  out[%d] = %s;\n" % (i, q) for i, q in enumerate(qs))
        fly = ("kernel k(src: global i32[%s], out: global i32[(L):(1)], %s, L: i32)\n  block(64) grid(1)\n{\n%s}\n"
               % (src, params, body))
        name = "queries-%d" % n
        fp, co, fout = (os.path.join(tmp, name + x) for x in (".fly", ".hsaco", ".out"))
        open(fp, "w").write(fly)
        cc = subprocess.run([FLYC, fp, "-o", co], capture_output=True, text=True)
        if cc.returncode or None in want:
            print("FAIL: views/%s\n    %s %s" % (name, cc.stderr.strip().replace("\n", "\n    "), want)); failed += 1
            continue
        args = ["buf=4096,fill=0", "buf=%d,fill=0xff,out=%s" % (4 * len(qs), fout)]
        args += ["i32=%d" % vals[m] for m in used] + ["i32=%d" % len(qs)]
        run = subprocess.run([SIM, co, "k"] + args, capture_output=True, text=True)
        raw = open(fout, "rb").read() if not run.returncode else b""
        got = [int.from_bytes(raw[4 * i:4 * i + 4], "little", signed=True) for i in range(len(raw) // 4)]
        if run.returncode or got != want:
            print("FAIL: views/%s (%s)\n    want %s\n    got  %s %s" % (name, src, want, got, run.stderr.strip()))
            failed += 1
        else:
            print("PASS: views/%s (%s: %s = %s)" % (name, src, ", ".join(qs), want))
    return failed


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            name, src, op, vals = case[:4]
            evop = case[4] if len(case) > 4 else op
            used = [n for n in NAMES if n in vals]
            lets = ["let %s = %d" % (n, vals[n]) for n in used]
            expr = src.replace(" ", "") if callable(evop) else evop.replace("src", src.replace(" ", ""))
            ev = subprocess.run([FLYC, "eval"] + lets + [expr], capture_output=True, text=True)
            lines = ev.stdout.strip().splitlines()
            if ev.returncode or not lines:
                print("FAIL: views/%s\n    flyc eval: %s" % (name, ev.stdout + ev.stderr)); failed += 1; continue
            if callable(evop):   # the expected offsets from a definition, on the layout of src
                _, sh, st = parse(lines[-1])
                want = evop(vals, sh, st)
                lines[-1] = "by definition"
            else:
                want = offsets(*parse(lines[-1]))
            cos = max(offsets(*parse(subprocess.run([FLYC, "eval"] + lets + [src.replace(" ", "")],
                                                    capture_output=True, text=True).stdout.strip().splitlines()[-1]))) + 1
            L = len(want)
            params = ", ".join("%s: i32" % n for n in used)
            block = 256 if "tiled_mma" in op else 64   # a tiled MMA's waves fit in the workgroup
            fly = ("import gfx950;\nkernel k(src: global i32[%s], out: global i32[(L):(1)], %s, L: i32)\n  block(%d) grid(1)\n{\n"
                   "  let v = %s;\n  for i in 0 .. L {\n    out[i] = v[i];\n  }\n}\n" % (src, params, block, op))
            fp, co = os.path.join(tmp, name + ".fly"), os.path.join(tmp, name + ".hsaco")
            open(fp, "w").write(fly)
            cc = subprocess.run([FLYC, fp, "-o", co], capture_output=True, text=True)
            if cc.returncode:
                print("FAIL: views/%s\n    %s" % (name, cc.stderr.strip().replace("\n", "\n    "))); failed += 1; continue
            fin, fout = os.path.join(tmp, name + ".in"), os.path.join(tmp, name + ".out")
            open(fin, "wb").write(b"".join(i.to_bytes(4, "little") for i in range(cos)))
            args = ["buf=%d,in=%s" % (4 * cos, fin), "buf=%d,fill=0xff,out=%s" % (4 * (L + 16), fout)]
            args += ["i32=%d" % vals[n] for n in used] + ["i32=%d" % L]
            run = subprocess.run([SIM, co, "k"] + args, capture_output=True, text=True)
            if run.returncode:
                print("FAIL: views/%s\n    flyc-sim: %s" % (name, (run.stdout + run.stderr).strip())); failed += 1; continue
            raw = open(fout, "rb").read()
            got = [int.from_bytes(raw[4 * i:4 * i + 4], "little", signed=True) for i in range(L + 16)]
            if got[:L] != want or any(g != -1 for g in got[L:]):
                print("FAIL: views/%s\n    %s = %s\n    want %s\n    got  %s" % (name, expr, lines[-1], want, got))
                failed += 1
            else:
                print("PASS: views/%s (%s = %s)" % (name, op, lines[-1]))
        failed += run_queries(tmp)
    return 1 if failed else 0


sys.exit(main())
