"""Mutation fuzzing of the code generator (run by scripts/fuzz.sh).

libFuzzer's fuzz_front stops at the checker; this drives the whole compiler.
It takes the kernels of examples/ and tests/codegen/fly/, changes one to three
things at random (a number replaced by an edge value, a line deleted, two
lines swapped), compiles the result with a sanitized flyc for gfx950 or
gfx1201, and counts as a crash any exit status above 1, a signal, a sanitizer
report, an internal compiler error or a compile over 60 s. Crashing inputs are
written to OUT/codegen-crash-N.fly with the report in .txt.

usage: mutate_codegen.py FLYC TOP OUT SECONDS [SEED]
"""
import glob
import os
import random
import re
import subprocess
import sys
import time

EDGE = ["0", "1", "2", "3", "4", "7", "8", "16", "31", "32", "33", "63", "64", "65",
        "127", "128", "256", "512", "1024", "65536", "-1"]


def mutate(rng, s):
    for _ in range(rng.randint(1, 3)):
        k = rng.random()
        lines = s.split("\n")
        if k < 0.6:
            nums = list(re.finditer(r"\b\d+\b", s))
            if nums:
                m = rng.choice(nums)
                s = s[:m.start()] + rng.choice(EDGE) + s[m.end():]
        elif k < 0.8:
            del lines[rng.randrange(len(lines))]
            s = "\n".join(lines)
        else:
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            s = "\n".join(lines)
    return s


def main():
    flyc, top, out, secs = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    files = sorted(glob.glob(os.path.join(top, "examples", "*.fly")) +
                   glob.glob(os.path.join(top, "tests", "codegen", "fly", "*.fly")))
    srcs = [open(f).read() for f in files]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    work = os.path.join(out, "codegen-work")
    os.makedirs(work, exist_ok=True)
    inp, obj = os.path.join(work, "in.fly"), os.path.join(work, "out.hsaco")
    runs = crashes = 0
    end = time.time() + secs
    while time.time() < end:
        i = rng.randrange(len(files))
        src = mutate(rng, srcs[i])
        arch = rng.choice(["gfx950", "gfx1201"])
        with open(inp, "w") as f:
            f.write(src)
        cmd = [flyc, inp, "-I", os.path.dirname(files[i]), "--offload-arch=" + arch, "-o", obj]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
            err = r.stderr
            bad = (r.returncode not in (0, 1) or "internal compiler error" in err or
                   "Sanitizer" in err or "runtime error" in err)
        except subprocess.TimeoutExpired:
            err, bad = "timeout after 60 s", True
        runs += 1
        if bad:
            crashes += 1
            base = os.path.join(out, "codegen-crash-%d" % crashes)
            with open(base + ".fly", "w") as f:
                f.write(src)
            with open(base + ".txt", "w") as f:
                f.write("from %s, --offload-arch=%s\n%s" % (files[i], arch, err[-4000:]))
    print("codegen mutations: %d runs, %d crashes" % (runs, crashes))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
