#!/usr/bin/env python3
"""Independent expectations for tests/codegen/lds-banks.test.

Computes LDS bank-conflict costs from the access patterns written out by
hand (per-lane element offsets of each kernel's accesses) with the bank model
of /work/shared/docs/amdgpu-facts.md section 5 (gfx950: 64 banks of 4 bytes;
ds_read_b128 in 4 phases {0-3,12-15,20-27}, {4-11,16-19,28-31} and the same
+32; 4-byte and narrower accesses in one phase of the whole wave), and
compares them with what `flyc show --banks FILE.fly` reports.

  banks.py patterns FLY REPORT      tests/codegen/fly/banks_patterns.fly
  banks.py transpose REPORT         examples/transpose.fly (gfx950)
  banks.py unswizzled REPORT        examples/gemm_bf16.fly without its swizzle
  banks.py gemm FLY REPORT ASM      every gfx950 export of the GEMM, reads
                                    conflict-free, instruction counts = ISA
  banks.py addresses FLY REPORT OUT tests/codegen/fly/banks_addr.fly: the
                                    lane addresses of --addresses against
                                    where the simulator stored each lane's id
Prints PASS or the mismatches.
"""
import re
import sys

LINE = re.compile(r"^  (\S+?):(\d+):(\d+): (read |write) (\w+) (\S+(?: \d+ B)?) x(\d+): "
                  r"(?:(\d+) phases?, (\d+) cycles? \(conflict-free minimum (\d+)\), "
                  r"(conflict-free|(\d+)-way bank conflict.*)|(.*))$")

PHASE0_B128 = set(range(0, 4)) | set(range(12, 16)) | set(range(20, 28))


def phase(nbytes, lane):
    """gfx950 read phases (amdgpu-facts.md section 5)."""
    if nbytes <= 4:
        return 0
    if nbytes == 8:
        return lane // 32
    return (2 if lane >= 32 else 0) + (0 if lane % 32 in PHASE0_B128 else 1)


def cost(byte_addrs, nbytes, banks=64):
    """(cycles, worst) of one wave access: byte_addrs[lane] or None (inactive)."""
    phases = {}
    for lane, a in enumerate(byte_addrs):
        if a is None:
            continue
        words = set(range(a // 4, (a + nbytes - 1) // 4 + 1))
        phases.setdefault(phase(nbytes, lane), set()).update(words)
    cycles, worst = 0, 0
    for words in phases.values():
        per_bank = {}
        for w in words:
            per_bank[w % banks] = per_bank.get(w % banks, 0) + 1
        d = max(per_bank.values())
        cycles += d
        worst = max(worst, d)
    return cycles, worst


def parse(report):
    """{(line, kind): (insn, count, cycles, worst)} and the kernel headers."""
    out, heads = {}, []
    for ln in open(report):
        h = re.match(r"^(\w+) \[(\w+)\]:", ln)
        if h:
            heads.append((h.group(1), h.group(2)))
            continue
        m = LINE.match(ln.rstrip("\n"))
        if not m:
            continue
        if m.group(13) is not None:
            out[(int(m.group(2)), m.group(4).strip())] = (m.group(6), int(m.group(7)), None, None)
            continue
        worst = 1 if m.group(11) == "conflict-free" else int(m.group(12))
        out[(int(m.group(2)), m.group(4).strip())] = (m.group(6), int(m.group(7)), int(m.group(9)), worst)
    return out, heads


def check(got, key, want, errs, what):
    if key not in got:
        errs.append("%s: no report line for source line %d (%s)" % (what, key[0], key[1]))
    elif got[key][2:] != want:
        errs.append("%s: line %d %s: reported cycles/worst %s, expected %s" % (what, key[0], key[1], got[key][2:], want))


def finish(errs):
    for e in errs:
        print("MISMATCH: " + e)
    print("PASS" if not errs else "FAIL")


def swz(o, b, m, s):
    """CuTe Swizzle<b,m,s> on element offset o."""
    mask = ((1 << b) - 1) << (m + s)
    return o ^ ((o & mask) >> s)


def patterns(fly, report):
    got, _ = parse(report)
    src = open(fly).read().split("\n")
    plain = lambda r, c: 64 * r + c
    padded = lambda r, c: 65 * r + c
    sw = lambda r, c: swz(64 * r + c, 6, 0, 6)
    # comment on the source line -> (kind, element offset of lane l)
    table = {
        "// row write": ("write", lambda l: plain(0, l)),
        "// column write": ("write", lambda l: plain(l, 1)),
        "// padded column write": ("write", lambda l: padded(l, 0)),
        "// swizzled column write": ("write", lambda l: sw(l, 0)),
        "// column read": ("read", lambda l: plain(l, 0)),
        "// row read": ("read", lambda l: plain(0, l)),
        "// padded column read": ("read", lambda l: padded(l, 0)),
        "// swizzled column read": ("read", lambda l: sw(l, 0)),
        "// even columns of two rows": ("read", lambda l: plain(l // 32, (2 * l) % 64)),
    }
    errs, seen = [], 0
    for i, text in enumerate(src, 1):
        for tag, (kind, off) in table.items():
            if text.rstrip().endswith(tag):
                seen += 1
                check(got, (i, kind), cost([4 * off(l) for l in range(64)], 4), errs, tag)
    if seen != len(table):
        errs.append("found %d of the %d tagged lines" % (seen, len(table)))
    finish(errs)


def transpose(report):
    """examples/transpose.fly, T = 64, 256 threads: phase 1 writes
    tile[r, c + j], phase 2 reads tile[c + j, r] (r = t / 8 + 32 i,
    c = 8 (t % 8)); bf16 elements, swizzle(3, 3, 6)."""
    got, _ = parse(report)
    keys = {k[1]: k for k in got}
    errs = []
    want = {"write": (0, 0), "read": (0, 0)}
    for i in range(2):
        for j in range(8):
            for w in range(4):
                for kind in ("write", "read"):
                    addrs = []
                    for l in range(64):
                        t = 64 * w + l
                        r, c = t // 8 + 32 * i, 8 * (t % 8)
                        row, col = (r, c + j) if kind == "write" else (c + j, r)
                        addrs.append(2 * swz(64 * row + col, 3, 3, 6))
                    cy, wo = cost(addrs, 2)   # one phase: the worst draw
                    want[kind] = (max(want[kind][0], cy), max(want[kind][1], wo))
    for kind in ("write", "read"):
        if kind not in keys:
            errs.append("no %s line" % kind)
        else:
            check(got, keys[kind], want[kind], errs, "transpose " + kind)
    finish(errs)


def unswizzled(report):
    """The GEMM's MFMA operand reads without the swizzle: lane l reads the 8
    bf16 of row l % 32 at K offset 8 (l / 32) of a 64-wide row-major tile
    (other repeats and waves shift every lane by whole rows or 16-element
    steps: the same cost)."""
    got, heads = parse(report)
    want = cost([2 * (64 * (l % 32) + 8 * (l // 32)) for l in range(64)], 16)
    reads = [k for k in got if k[1] == "read"]
    errs = []
    if not reads:
        errs.append("no LDS reads reported")
    for k in reads:
        check(got, k, want, errs, "unswizzled read")
    print("expected cycles %d, %d-way" % want)
    finish(errs)


def gemm(fly, report, asm):
    src = re.sub(r"//[^\n]*", "", open(fly).read())
    # kernels for gfx950: no targets(...) clause, or one naming gfx950
    for950 = set()
    for m in re.finditer(r"^kernel\s+(\w+)(.*?)\{", src, re.S | re.M):
        t = re.search(r"targets\(([^)]*)\)", m.group(2))
        if not t or "gfx950" in t.group(1):
            for950.add(m.group(1))
    exports = [m.group(3) for m in re.finditer(r"^export\s+(\w+)(<[^>]*>)?\s+as\s+(\w+)\s*;", src, re.M)
               if m.group(1) in for950]
    errs = []
    text = open(report).read()
    _, heads = parse(report)
    names = [h[0] for h in heads if h[1] == "gfx950"]
    if not exports:
        errs.append("no gfx950 export found in " + fly)
    if sorted(names) != sorted(exports):
        errs.append("kernels analysed %s, exports %s" % (sorted(names), sorted(exports)))
    # per kernel: the summary, and the instruction counts against the ISA
    blocks = re.split(r"^(?=\w+ \[gfx950\]:)", text, flags=re.M)
    asmtext = open(asm).read()
    for b in blocks:
        h = re.match(r"(\w+) \[gfx950\]:", b)
        if not h:
            continue
        name = h.group(1)
        if "all LDS reads conflict-free" not in b and "no LDS reads" not in b:
            errs.append("%s: reads not all conflict-free" % name)
        counts = {}
        for ln in b.split("\n"):
            m = LINE.match(ln)
            if m:
                counts[m.group(6)] = counts.get(m.group(6), 0) + int(m.group(7))
        f = re.search(r"^%s:\n(.*?)^\.Lfunc_end" % re.escape(name), asmtext, re.S | re.M)
        if not f:
            errs.append("%s: not found in the assembly" % name)
            continue
        isa = {}
        for ins in re.findall(r"^\s+(ds_(?:read|write)\w*)", f.group(1), re.M):
            ins = re.sub(r"_d16_hi$", "", ins)      # the high half of a register, same access
            isa[ins] = isa.get(ins, 0) + 1
        # loads straight to LDS, which the report names load_to_lds_bN
        bits = {"dword": 32, "dwordx3": 96, "dwordx4": 128}
        for w in re.findall(r"^\s+(?:buffer_load_|global_load_lds_)(dword\w*)\b[^\n]*\blds$|"
                            r"^\s+global_load_lds_(dword\w*)", f.group(1), re.M):
            ins = "load_to_lds_b%d" % bits[w[0] or w[1]]
            isa[ins] = isa.get(ins, 0) + 1
        # every LDS instruction of the assembly is one the analysis reported; a
        # kernel without branches around its LDS accesses has exactly the same
        # counts, while LLVM may merge the two arms of an `if` (the report
        # counts both)
        branchy = "s_cbranch" in f.group(1) and counts != isa
        if set(counts) != set(isa) or any(counts[k] < isa[k] for k in isa) or (
                counts != isa and not re.search(r"\bif\b", src)):
            errs.append("%s: report counts %s, assembly %s" % (name, counts, isa))
        elif branchy:
            print("%s: the assembly merged branches: %s" % (name, isa))
        print("%s: %s" % (name, " ".join("%s x%d" % kv for kv in sorted(counts.items()))))
    finish(errs)


def lane_addresses(fly, report):
    """{source line: [byte address or None per lane]} from --addresses output."""
    out, cur, lines = {}, None, open(report).read().split("\n")
    for ln in lines:
        m = LINE.match(ln)
        if m:
            cur = int(m.group(2))
            out[cur] = []
        elif cur is not None and ln.startswith("      "):
            out[cur] += [None if t == "-" else int(t) for t in ln.split()]
    return out


def addresses(fly, report, outbin):
    import struct
    data = open(outbin, "rb").read()
    vals = struct.unpack("<%di" % (len(data) // 4), data)
    src = open(fly).read().split("\n")
    got = lane_addresses(fly, report)
    errs = []
    # probe -> (first output element, lds base, raw element offset of (r, c))
    probes = {"// probe a": (0, 0, lambda r, c: 64 * r + c),
              "// probe b": (4096, 16384, lambda r, c: swz(64 * r + c, 3, 2, 5))}
    for i, text in enumerate(src, 1):
        for tag, (first, base, raw) in probes.items():
            if not text.rstrip().endswith(tag):
                continue
            addrs = got.get(i)
            if not addrs or len(addrs) != 64:
                errs.append("%s: no 64 lane addresses for line %d" % (tag, i))
                continue
            tile = vals[first:first + 4096]
            where = {}
            for k, v in enumerate(tile):
                if v != -1:
                    if v in where or not 0 <= v < 64:
                        errs.append("%s: value %d stored twice or out of range" % (tag, v))
                    where[v] = k
            for l in range(64):
                if l not in where:
                    errs.append("%s: lane %d's id not found in the tile" % (tag, l))
                    continue
                want = base + 4 * raw(where[l] // 64, where[l] % 64)
                if addrs[l] != want:
                    errs.append("%s: lane %d analysed at byte %s, the simulator stored it at %d" % (tag, l, addrs[l], want))
            print("%s: 64 lanes compared" % tag)
    finish(errs)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "patterns":
        patterns(sys.argv[2], sys.argv[3])
    elif cmd == "transpose":
        transpose(sys.argv[2])
    elif cmd == "unswizzled":
        unswizzled(sys.argv[2])
    elif cmd == "gemm":
        gemm(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "addresses":
        addresses(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit("usage: banks.py patterns|transpose|unswizzled|gemm ...")
