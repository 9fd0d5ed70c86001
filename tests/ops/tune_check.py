"""tests/ops/tune_check.py DB STALE... — the tuning database flyc-tune wrote changes the
variant flyc.ops.mm runs (and the result stays within the bound); databases whose rows
are stale (another flyc version, another build of the code object) leave the default.
Run by tests/ops/run.sh; prints PASS:/FAIL: lines.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import flyc  # noqa: E402

db, stale = sys.argv[1], sys.argv[2:]
BF = torch.bfloat16
g = torch.Generator().manual_seed(3)
a = (torch.rand(256, 64, generator=g) * 2 - 1).to(BF)
bt = (torch.rand(256, 64, generator=g) * 2 - 1).to(BF)
a2 = (torch.rand(512, 128, generator=g) * 2 - 1).to(BF)
bt2 = (torch.rand(512, 128, generator=g) * 2 - 1).to(BF)


def result(name, ok, detail=""):
    print(("PASS: " if ok else "FAIL: ") + "ops: tune: " + name)
    if not ok:
        print("    " + str(detail))


def within_bound(c, x, y):
    ref = x.double() @ y.double()
    mag = x.double().abs() @ y.double().abs()
    ulp = torch.pow(2.0, torch.floor(torch.log2(ref.abs().clamp(min=2.0 ** -126))) - 7)
    return bool(((c.double() - ref).abs() <= ulp + x.shape[1] * 2.0 ** -24 * mag).all())


flyc.configure(tuning_db="")
d1, d2 = flyc.ops.plan("mm", a, bt.t()), flyc.ops.plan("mm", a2, bt2.t())
result("without a database the default variant runs", d1 == d2 == "gemm_nt_128x128", (d1, d2))
flyc.configure(tuning_db=db)
p1, p2 = flyc.ops.plan("mm", a, bt.t()), flyc.ops.plan("mm", a2, bt2.t())
result("the database changes the chosen variant (256x256x64 -> gemm_nt_256x256)",
       p1 == "gemm_nt_256x256", p1)
result("and per bucket (512x512x128 -> gemm_nt_256x128)", p2 == "gemm_nt_256x128", p2)
p3 = flyc.ops.plan("mm", a2[:384], bt2.t())
result("a shape outside every bucket gets the default", p3 == "gemm_nt_128x128", p3)
launches = flyc.context().launches
c = flyc.ops.mm(a, bt.t())
result("the chosen variant runs and is within the bound",
       flyc.context().launches == launches + 1 and within_bound(c, a, bt.t()))
with flyc.ops.using_variant("gemm_nt_128x128"):
    c0 = flyc.ops.mm(a, bt.t())
result("and agrees bitwise with the default variant", torch.equal(c.view(torch.int16), c0.view(torch.int16)))
for path in stale:
    flyc.configure(tuning_db=path)
    p = flyc.ops.plan("mm", a, bt.t())
    result("stale rows (%s) are ignored: the default" % os.path.basename(path), p == "gemm_nt_128x128", p)
flyc.configure(tuning_db="")
