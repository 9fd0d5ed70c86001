"""tests/ops/tune_split_check.py DB STALE — a tuning database chooses split-K (docs/ops.md,
"The tuning database"): DB (flyc-tune --measurements, written by tests/ops/run.sh) ranks
gemm_nt_splitk.s4 first for 96x256x1024 (the rule would not split: M > 64), a one-pass
kernel first for 16x512x1024 (the rule would split), split-K first with a bias for
16x512x1024 (key bf16+bf16->bf16); STALE is DB with another code-object hash. Results
against f64 references in NaN-guarded storage. Prints PASS:/FAIL: lines.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import flyc  # noqa: E402

from harness import check, run  # noqa: E402
from test_mm_epilogue import check_bias  # noqa: E402
from test_ops import Guarded, check_mm, rand_bf16  # noqa: E402

db, stale = sys.argv[1], sys.argv[2]
BF = torch.bfloat16


def call(M, N, K, seed, want, launches, bias=False):
    """plan says want; the call makes that many launches into out, within the bound"""
    g = torch.Generator().manual_seed(seed)
    ga = Guarded((M, K), values=rand_bf16(M, K, gen=g))
    gb = Guarded((N, K), values=rand_bf16(N, K, gen=g))
    gbias = Guarded((N,), values=rand_bf16(N, gen=g)) if bias else None
    bv = gbias.view if bias else None
    out = Guarded((M, N))
    chosen = flyc.ops.plan("mm", ga.view, gb.view.t(), bias=bv, out=out.view)
    check(chosen == want, "%dx%dx%d: plan %s, not %s" % (M, N, K, chosen, want))
    n = flyc.context().launches
    flyc.ops.mm(ga.view, gb.view.t(), bias=bv, out=out.view)
    check(flyc.context().launches == n + launches, "%d launches, not %d" % (flyc.context().launches - n, launches))
    check(ga.unchanged() and gb.unchanged() and (not bias or gbias.unchanged()) and out.guards_intact(),
          "a guard or input was written")
    check(not bool(torch.isnan(out.view.float()).any()), "an output was not written")
    if bias:
        check_bias(out.view, ga.view, gb.view.t(), gbias.view)
    else:
        check_mm(out.view, ga.view, gb.view.t())


def t_default():
    flyc.configure(tuning_db="")
    call(96, 256, 1024, 1, "gemm_nt_ragged", 1)           # M > 64: one pass
    call(16, 512, 1024, 2, "gemm_nt_splitk", 2)           # M <= 64, 16 k-tiles: split


def t_row_splits():
    flyc.configure(tuning_db=db)
    call(96, 256, 1024, 1, "gemm_nt_splitk.s4", 2)        # the row's split-K, at most 4 ranges
    call(72, 200, 1000, 3, "gemm_nt_splitk.s4", 2)        # same bucket, K tail


def t_row_one_pass():
    flyc.configure(tuning_db=db)
    call(16, 512, 1024, 2, "gemm_nt_ragged", 1)           # the row ranks the one-pass kernel first
    call(16, 512, 1024, 4, "gemm_nt_splitk", 2, bias=True)   # with a bias: its own key's row


def t_row_split_refused():
    # the row's split-K cannot take M N % 4 != 0 (gemm_splitk_sum's 4 outputs per
    # thread): the row's next name runs
    flyc.configure(tuning_db=db)
    call(97, 255, 1024, 5, "gemm_nt_ragged", 1)
    # another layout or a forced variant: the NT row does not apply
    a, b = rand_bf16(96, 1024), rand_bf16(1024, 256)
    check(flyc.ops.plan("mm", a, b) == "gemm_nn_ragged", flyc.ops.plan("mm", a, b))
    with flyc.ops.using_variant("gemm_nt_ragged"):
        check(flyc.ops.plan("mm", a, b.t().contiguous().t()) == "gemm_nt_ragged")


def t_stale():
    flyc.configure(tuning_db=stale)
    call(96, 256, 1024, 1, "gemm_nt_ragged", 1)
    call(16, 512, 1024, 2, "gemm_nt_splitk", 2)


tests = [("without a database: the built-in split-K rule", t_default),
         ("a row ranking split-K first splits where the rule would not", t_row_splits),
         ("a row ranking a one-pass kernel first overrides the rule", t_row_one_pass),
         ("a row's split-K that cannot take the call: the next name", t_row_split_refused),
         ("stale rows (another code-object hash) leave the rule", t_stale)]
rc = run("ops: tune: split-K", tests)
flyc.configure(tuning_db="")
sys.exit(rc)
