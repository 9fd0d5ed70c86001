"""tests/ops/harness.py — what the Python tests of tests/ops share: checks, and running a
list of (name, function) printing one PASS:/FAIL: line each (tests/lib.sh's format)."""
import sys
import traceback


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
    for name, fn in tests:
        try:
            fn()
            print("PASS: %s: %s" % (prefix, name))
        except Exception:
            failed += 1
            print("FAIL: %s: %s" % (prefix, name))
            for line in traceback.format_exc().splitlines()[-12:]:
                print("    " + line)
        sys.stdout.flush()
    return 1 if failed else 0
