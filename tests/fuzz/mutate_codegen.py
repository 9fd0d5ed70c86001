"""Mutation fuzzing of the code generator (run by scripts/fuzz.sh and, for a fixed number of
mutants with a fixed seed, by tests/fuzz/run.sh in make check).

libFuzzer's fuzz_front stops at the checker; this drives the whole compiler.
It takes the kernels of examples/ and tests/codegen/fly/, changes one to three
things at random (a number replaced by an edge value, a line deleted, duplicated
or two lines swapped, a name replaced by another name of the file, a builtin by
another of its family, an operator by another, a register fragment mixed with a
scalar in an elementwise builtin, a name wrapped in one), compiles the result with flyc for gfx950
or gfx1201 at a random -O level, and counts as a failure any exit status above 1,
a signal, a sanitizer report, an internal compiler error, an "internal:" or
"IR verifier" message, an LLVM error or assertion, or a compile over 60 s: a
program the checker accepts either compiles or gets a located diagnostic naming
what is not supported. Failing inputs are written to OUT/codegen-crash-N.fly
with the report in .txt.

usage: mutate_codegen.py FLYC TOP OUT SECONDS [SEED] [--runs N]
  --runs N: exactly N mutants (SECONDS is then only a safety limit)
"""
import glob
import os
import random
import re
import subprocess
import sys
import time

MANY_EXPORTS = 8
EDGE = ["0", "1", "2", "3", "4", "7", "8", "16", "31", "32", "33", "63", "64", "65",
        "127", "128", "256", "512", "1024", "65536", "-1"]
FAMILIES = [
    ["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "abs", "square"],
    ["min", "max", "add", "mul"],
    ["local_tile", "local_partition"],
    ["fragment_like", "make_identity"],
    ["sum", "abs", "square", "exp"],
    ["f32", "f16", "bf16", "i32", "u32", "i8", "i16", "fp8", "bool"],
    ["global", "lds", "reg"],
    ["get", "elem_less"],
    ["fragment", "fragment_like"],
]
BINOPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&&", "||"]
WRAPS = ["max({}, 0.5)", "min({}, 2)", "exp({})", "-({})", "select({} > 1, {}, {})", "({} * 2.0)",
         "convert<f32>({})", "convert<i32>({})", "abs({})", "fma({}, {}, 1.0)", "({} + 1)", "sum({})"]
FRAGMIX = ["max({}, {s})", "min({}, {s})", "max({s}, {})", "select({} > {s}, {}, {s})", "select({s} < {}, {s}, {})",
           "exp({})", "exp2({})", "fma({}, {s}, {s})", "fma({s}, {s}, {})", "abs({} - {s})", "({} * {s})",
           "({s} - {})", "-({})", "square({})", "select({} != {}, {}, {s})", "add({}, {s})", "mul({s}, {})"]
KEYWORDS = {"kernel", "let", "var", "for", "in", "if", "else", "while", "static", "export", "as", "import",
            "const", "atom", "block", "grid", "requires", "global", "lds", "reg", "true", "false",
            "return", "pipeline", "waves", "stages", "load", "compute", "step", "groups", "assume", "o", "fn"}


def fragments(s):
    """names bound to register fragments (fragment_like, fragment_A/B/C, reg buffers), and
    names bound to expressions of them"""
    frags = set(re.findall(r"(?:let|var) ([a-z_][a-z0-9_]*) = [a-z_.()]*fragment[a-z_A-C]*\(", s))
    frags |= set(re.findall(r"\breg ([a-z_][a-z0-9_]*) *:", s))
    for _ in range(3):
        for name, rhs in re.findall(r"(?:let|var) ([a-z_][a-z0-9_]*) = ([^;]*);", s):
            if set(re.findall(r"[a-z_][a-z0-9_]*", rhs)) & frags:
                frags.add(name)
    return frags


def mutate(rng, s):
    for _ in range(rng.randint(1, 3)):
        k = rng.random()
        lines = s.split("\n")
        if k < 0.30:
            nums = list(re.finditer(r"\b\d+\b", s))
            if nums:
                m = rng.choice(nums)
                s = s[:m.start()] + rng.choice(EDGE) + s[m.end():]
        elif k < 0.42:
            del lines[rng.randrange(len(lines))]
            s = "\n".join(lines)
        elif k < 0.50:
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            s = "\n".join(lines)
        elif k < 0.54:
            a = rng.randrange(len(lines))
            lines.insert(a, lines[rng.randrange(len(lines))])
            s = "\n".join(lines)
        elif k < 0.67:  # a name replaced by another name of the file
            names = [m for m in re.finditer(r"\b[a-z_][a-z0-9_]*\b", s) if m.group(0) not in KEYWORDS]
            if names:
                m, other = rng.choice(names), rng.choice(names).group(0)
                s = s[:m.start()] + other + s[m.end():]
        elif k < 0.76:  # a builtin or type by another of its family
            fam = rng.choice(FAMILIES)
            hits = list(re.finditer(r"\b(%s)\b" % "|".join(fam), s))
            if hits:
                m = rng.choice(hits)
                s = s[:m.start()] + rng.choice(fam) + s[m.end():]
        elif k < 0.84:  # an operator by another
            hits = list(re.finditer(r"(?<=[\w)\]]) (\+|-|\*|/|%|<|>|<=|>=|==|!=|&&|\|\|) (?=[\w(])", s))
            if hits:
                m = rng.choice(hits)
                s = s[:m.start(1)] + rng.choice(BINOPS) + s[m.end(1):]
        elif k < 0.96:  # a fragment mixed with a scalar in an elementwise builtin
            frags = fragments(s)
            uses = [m for m in re.finditer(r"(?<![.\w])([a-z_][a-z0-9_]*)\b(?![(<.\w])", s)
                    if m.group(1) in frags and not s[:m.start()].rstrip().endswith("let")]
            scal = re.findall(r"\b([a-z_][a-z0-9_]*): (?:f32|f16|bf16)\b", s) or ["0.5"]
            if uses:
                m = rng.choice(uses)
                t = rng.choice(FRAGMIX).replace("{s}", rng.choice(scal + ["0.5", "2.0"]))
                s = s[:m.start()] + t.replace("{}", m.group(1)) + s[m.end():]
        else:  # a name wrapped in an elementwise builtin or mixed with a scalar
            names = [m for m in re.finditer(r"(?<![.\w])[a-z_][a-z0-9_]*\b(?![(<.\w])", s)
                     if m.group(0) not in KEYWORDS]
            if names:
                m = rng.choice(names)
                s = s[:m.start()] + rng.choice(WRAPS).replace("{}", m.group(0)) + s[m.end():]
    return s


BAD_TEXT = ("internal compiler error", "internal:", "IR verifier", "Sanitizer", "runtime error",
            "LLVM ERROR", "Assertion", "UNREACHABLE", "Stack dump")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--runs")]
    nruns = None
    for i, a in enumerate(sys.argv):
        if a.startswith("--runs"):
            nruns = int(a.split("=", 1)[1]) if "=" in a else int(sys.argv[i + 1])
            if "=" not in a:
                args.remove(sys.argv[i + 1])
    flyc, top, out, secs = args[0], args[1], args[2], float(args[3])
    rng = random.Random(int(args[4]) if len(args) > 4 else 1)
    files = sorted(glob.glob(os.path.join(top, "examples", "*.fly")) +
                   glob.glob(os.path.join(top, "tests", "codegen", "fly", "*.fly")))
    srcs = [open(f).read() for f in files]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    work = os.path.join(out, "codegen-work")
    os.makedirs(work, exist_ok=True)
    inp, obj = os.path.join(work, "in.fly"), os.path.join(work, "out.hsaco")
    runs = crashes = 0
    outcome = {"compiled": 0, "diagnosed": 0}
    end = time.time() + secs
    while time.time() < end and (nruns is None or runs < nruns):
        i = rng.randrange(len(files))
        src = mutate(rng, srcs[i])
        arch = rng.choice(["gfx950", "gfx1201"])
        opt = rng.choice(["-O0", "-O1", "-O3", "-O3"])
        with open(inp, "w") as f:
            f.write(src)
        cmd = [flyc, inp, "-w", "-I", os.path.dirname(files[i]), "--offload-arch=" + arch, opt, "-o", obj]
        # a file of many exports (examples/gemm_bf16.fly: stdlib/ops/gemm.fly's 41 gfx950
        # kernels, ~40 CPU s at -O3) generates code for one of them, chosen at random: the
        # whole file is still parsed and checked, and the 60 s limit stays a hang detector
        exports = re.findall(r"^export\s.*\bas\s+(\w+)\s*;", srcs[i], re.M)
        if len(exports) > MANY_EXPORTS:
            cmd.append("--kernel=" + rng.choice(exports))
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
            err = r.stdout + r.stderr
            bad = r.returncode not in (0, 1) or any(t in err for t in BAD_TEXT)
            outcome["compiled" if r.returncode == 0 else "diagnosed"] += 1
        except subprocess.TimeoutExpired:
            err, bad = "timeout after 60 s", True
        runs += 1
        if bad:
            crashes += 1
            base = os.path.join(out, "codegen-crash-%d" % crashes)
            with open(base + ".fly", "w") as f:
                f.write(src)
            with open(base + ".txt", "w") as f:
                f.write("from %s, --offload-arch=%s %s (run %d)\n%s" % (files[i], arch, opt, runs, err[-4000:]))
            first = [l for l in err.splitlines() if any(t in l for t in BAD_TEXT)] or err.splitlines()[-1:]
            print("codegen-crash-%d (from %s, %s %s): %s" % (crashes, os.path.basename(files[i]), arch, opt,
                                                            first[0][:300] if first else "exit %d" % r.returncode))
    print("codegen mutations: %d runs (%d compiled, %d diagnosed), %d failures" % (
        runs, outcome["compiled"], outcome["diagnosed"], crashes))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
