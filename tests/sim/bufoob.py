#!/usr/bin/python3
"""tests/sim/bufoob.py: buffer range checking (gfx950's rule, gfx1201's OOB_SELECT) against Python.

    bufoob.py FLYC_SIM LLC LLD TMPDIR

Runs tests/sim/bufoob.ll (see its header for what each lane loads and stores)
with resources of several strides, num_records and word3 values, and compares
every loaded dword and the stored buffer with a model of the rule written
here from the ISA descriptions in docs/simulator.md ("Buffer resources"):
  gfx950 (word3 0x00020000): raw in range when offset + 4 <= num_records,
    structured (idxen, stride != 0) when index < num_records;
  gfx1201, OOB_SELECT = word3 bits 29:28: 0 index < num_records and the
    offset in the record + 4 <= stride; 1 index < num_records; 2 num_records
    != 0; 3 byte offset (index * stride + offset) + 4 <= num_records.
Out-of-range loads read 0 and out-of-range stores are dropped; every dword of
the b128 load is checked on its own. A load and a store with a non-zero
soffset: soffset counts toward the bounds check (AMD's rocjitsu emulator,
matched to gfx950 hardware in ROCm/rocm-systems PR #10928; LLVM's
IntrinsicsAMDGPU.td comment "excluded from bounds checking" does not describe
the range check), so soffset + voffset + 4 <= num_records decides. Also: a
gfx1201 resource with ADD_TID_ENABLE stops the run with a reason. One
PASS/FAIL line per case.
"""
import os
import struct
import subprocess
import sys

sim, llc, lld, tmp = sys.argv[1:5]
here = os.path.dirname(os.path.abspath(__file__))
IN = 4096
src = bytes((i * 37 + 11) & 255 for i in range(IN))
SO = 16   # the soffset of the last load and (+ 496) store


def build(cpu):
    o, co = os.path.join(tmp, 'bufoob.%s.o' % cpu), os.path.join(tmp, 'bufoob.%s.hsaco' % cpu)
    r = subprocess.run([llc, '-mtriple=amdgcn-amd-amdhsa', '-mcpu=' + cpu, '-O2', '-filetype=obj',
                        os.path.join(here, 'bufoob.ll'), '-o', o], capture_output=True, text=True)
    if r.returncode == 0:
        r = subprocess.run([lld, '-shared', o, '-o', co], capture_output=True, text=True)
    return co if r.returncode == 0 else (None, r.stderr)


def in_range(rule, stride, nrec, idxen, idx, inner):
    """inner: voffset + soffset + offset (bytes inside the record); idxen: a struct access"""
    off = stride * idx + inner
    if rule == 'gfx9':
        return idx < nrec if (stride and idxen) else off + 4 <= nrec
    if rule == 0:
        return idx < nrec and inner + 4 <= stride
    if rule == 1:
        return idx < nrec
    if rule == 2:
        return nrec != 0
    return off + 4 <= nrec


def word(b, off):
    return struct.unpack_from('<I', b, off)[0] if off + 4 <= len(b) else None


def model(rule, stride, nrec):
    o = [0] * 448
    for l in range(64):
        if in_range(rule, stride, nrec, False, 0, 4 * l):
            o[l] = word(src, 4 * l)
        if in_range(rule, stride, nrec, True, l // 4, 4 * (l % 4)):
            o[64 + l] = word(src, stride * (l // 4) + 4 * (l % 4))
        for d in range(4):
            if in_range(rule, stride, nrec, False, 0, 12 * l + 4 * d):
                o[128 + 4 * l + d] = word(src, 12 * l + 4 * d)
        if in_range(rule, stride, nrec, False, 0, SO + 4 * l):
            o[384 + l] = word(src, SO + 4 * l)
    st = bytearray(b'\xee' * IN)
    for l in range(64):
        if in_range(rule, stride, nrec, False, 0, 4 * l):
            struct.pack_into('<I', st, 4 * l, l + 1)
    for l in range(64):
        if in_range(rule, stride, nrec, True, l // 4, 256 + 4 * (l % 4)):
            struct.pack_into('<I', st, stride * (l // 4) + 256 + 4 * (l % 4), l + 1001)
        if in_range(rule, stride, nrec, False, 0, SO + 496 + 4 * l):
            struct.pack_into('<I', st, SO + 496 + 4 * l, l + 2001)
    return o, bytes(st)


def run(co, stride, nrec, w3, name):
    d = os.path.join(tmp, 'run')
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, 'in.bin'), 'wb').write(src)
    for f in ('o.bin', 'st.bin'):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    return subprocess.run([sim, co, 'k_bufoob', '--grid=1', '--block=64', 'buf=1792,out=%s/o.bin' % d,
                           'buf=%d,in=%s/in.bin' % (IN, d), 'buf=%d,fill=0xee,out=%s/st.bin' % (IN, d),
                           'u32=%d' % stride, 'u32=%d' % nrec, 'u32=0x%x' % w3, 'u32=%d' % SO],
                          capture_output=True, text=True), d


def check(co, rule, stride, nrec, w3, name):
    r, d = run(co, stride, nrec, w3, name)
    if r.returncode:
        print('FAIL: %s\n    flyc-sim failed: %s' % (name, (r.stdout + r.stderr).strip()))
        return
    got = list(struct.unpack('<448I', open(os.path.join(d, 'o.bin'), 'rb').read()))
    gst = open(os.path.join(d, 'st.bin'), 'rb').read()
    want, wst = model(rule, stride, nrec)
    bad = [i for i in range(448) if got[i] != want[i]]
    sbad = [i for i in range(0, IN, 4) if gst[i:i + 4] != wst[i:i + 4]]
    if bad or sbad:
        msg = []
        if bad:
            msg.append('%d loaded dwords wrong; o[%d] = 0x%x, want 0x%x' % (len(bad), bad[0], got[bad[0]], want[bad[0]]))
        if sbad:
            msg.append('%d stored dwords wrong; st[%d] = %s, want %s' % (len(sbad), sbad[0] // 4, gst[sbad[0]:sbad[0] + 4].hex(),
                                                                        wst[sbad[0]:sbad[0] + 4].hex()))
        print('FAIL: %s\n    %s' % (name, '\n    '.join(msg)))
    else:
        print('PASS: ' + name)


def main():
    co9, co12 = build('gfx950'), build('gfx1201')
    for cpu, co in (('gfx950', co9), ('gfx1201', co12)):
        if isinstance(co, tuple):
            print('FAIL: sim/bufoob-compile-%s\n    %s' % (cpu, co[1].strip()))
    # (stride, num_records): raw-sized and record-counted limits, a limit that is
    # not a multiple of 4, zero, and a stride of 12 (the struct load's 4th dword
    # is past the record)
    shapes = [(0, 100), (0, 530), (16, 10), (12, 7), (16, 0)]
    if not isinstance(co9, tuple):
        for stride, nrec in shapes:
            check(co9, 'gfx9', stride, nrec, 0x00020000, 'sim/bufoob gfx950 stride %d nrec %d' % (stride, nrec))
    if not isinstance(co12, tuple):
        for sel in range(4):
            for stride, nrec in shapes:
                w3 = 0x01004000 | sel << 28   # CK's gfx12 word3 is 0x31004000 (OOB_SELECT 3)
                check(co12, sel, stride, nrec, w3, 'sim/bufoob gfx1201 OOB_SELECT %d stride %d nrec %d' % (sel, stride, nrec))
        r, _ = run(co12, 0, 100, 0x31804000, 'addtid')
        msg = r.stdout + r.stderr
        if r.returncode == 1 and 'unsupported buffer resource' in msg and 'ADD_TID_ENABLE' in msg:
            print('PASS: sim/bufoob gfx1201 ADD_TID_ENABLE refused')
        else:
            print('FAIL: sim/bufoob gfx1201 ADD_TID_ENABLE refused\n    status %d: %s' % (r.returncode, msg.strip()))


main()
