"""tests/ops/harness.py — what the Python tests of tests/ops (and the operator tiers) share:
checks, ulp, and running a list of (name, function) printing one PASS:/FAIL: line each
(tests/lib.sh's format).

Each test starts from torch's global generator seeded by its name (and FLY_TEST_SEED, 0
unless set), so a test that draws without its own generator draws the same numbers on every
run: a failure repeats, and FLY_TEST_SEED=N explores other draws."""
import os
import sys
import traceback
import zlib


def ulp(x, dtype):
    """One unit in the last place of dtype (torch bfloat16 or float16) at |x| (the subnormal
    spacing below the normals), as a float64 tensor like x."""
    import torch
    fi = torch.finfo(dtype)
    mant = 8 if dtype == torch.bfloat16 else 11
    e = torch.floor(torch.log2(x.abs().clamp(min=fi.tiny)))
    return torch.pow(2.0, e - (mant - 1)).clamp(min=fi.tiny * 2.0 ** -(mant - 1))


def check(cond, msg="check failed"):
    if not cond:
        raise AssertionError(msg)


def raises(exc, fn, *words):
    """fn() must raise exc with every word in its message; returns the exception."""
    try:
        fn()
    except exc as e:
        for w in words:
            check(w in str(e), "message %r lacks %r" % (str(e), w))
        return e
    raise AssertionError("%s was not raised" % exc.__name__)


def run(prefix, tests):
    """Run each test; exit status 1 when one failed."""
    failed = 0
    base = int(os.environ.get("FLY_TEST_SEED", "0"))
    for name, fn in tests:
        seed = (zlib.crc32(("%s: %s" % (prefix, name)).encode()) + base) & 0x7fffffff
        try:
            torch = sys.modules.get("torch")
            if torch is not None:
                torch.manual_seed(seed)
            fn()
            print("PASS: %s: %s" % (prefix, name))
        except Exception:
            failed += 1
            print("FAIL: %s: %s" % (prefix, name))
            print("    (torch seeded %d; FLY_TEST_SEED=%d)" % (seed, base))
            for line in traceback.format_exc().splitlines()[-12:]:
                print("    " + line)
        sys.stdout.flush()
    return 1 if failed else 0
