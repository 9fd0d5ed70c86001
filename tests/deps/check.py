"""check.py — every program and Python module make check ran comes from a Debian package
that scripts/install-deps.sh installs (tests/deps/run.sh runs it on the exec log).

usage: check.py LOG TREE PKG...
       check.py --outside PKG...   (prints "PACKAGE PROGRAM" for one installed package outside
                                    the allowed set that has a program in /usr/bin, if any: the
                                    self-test of tests/deps/run.sh)
  LOG   the exec log (lines "exec PATH FOREIGN" from execlog.so, "pymod NAME FILE PYTHON"
        from pysite/sitecustomize.py)
  TREE  ':'-separated folders whose programs are the project's own (the repository, the tests'
        temporary folders): not looked up
  PKG   the installer's package list (PKGS of scripts/install-deps.sh)

A program is looked up with dpkg -S: as run, its /usr-merged twin (/bin/x and /usr/bin/x),
and the file its symlinks lead to (/usr/bin/cc -> /etc/alternatives/cc -> gcc-12). A program
from outside the system folders (a developer's pyenv or /usr/local python3) stands for the
program of the same name a fresh Debian would find in /usr/bin, /usr/sbin, /bin or /sbin;
what it runs of its own is not counted, the system programs it runs are. Modules imported by
a system Python (/usr/bin/python3) are looked up the same way; modules of another Python are
not (on a fresh machine python3 is Debian's).

Allowed: the packages in the dependency closure (Depends, Pre-Depends; alternatives and
virtual packages resolved to what is installed) of the installer's list, and by rule the
packages every Debian system has: Essential: yes and Priority: required (debootstrap's
minimal set: coreutils, dash, sed, grep, findutils, diffutils, mawk, tar, ...).

Prints one line per package used and per problem; exit status 1 when a program or module is
not provided by an allowed package.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/", "/libx32/")
FRESH_PATH = ("/usr/bin", "/usr/sbin", "/bin", "/sbin")


def is_system(p):
    return p.startswith(SYSTEM) and not p.startswith("/usr/local/")


def under(p, dirs):
    return any(p == d or p.startswith(d.rstrip("/") + "/") for d in dirs)


def twin(p):
    for a, b in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/"), ("/usr/lib/", "/lib/"),
                 ("/usr/lib64/", "/lib64/")):
        if p.startswith(a):
            return b + p[len(a):]
        if p.startswith(b):
            return a + p[len(b):]
    return None


def candidates(p):
    out = [p, twin(p)]
    r = os.path.realpath(p)
    out += [r, twin(r)]
    return [c for i, c in enumerate(out) if c and c not in out[:i]]


def dpkg_owners(paths):
    """{path: package} for the paths dpkg knows (one dpkg -S call per 400 paths)."""
    own = {}
    paths = sorted(set(paths))
    for i in range(0, len(paths), 400):
        r = subprocess.run(["dpkg", "-S"] + paths[i:i + 400], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if line.startswith("diversion ") or ": " not in line:
                continue
            pkgs, path = line.split(": ", 1)
            if path in paths:
                own[path] = pkgs.split(",")[0].strip().split(":")[0]
    return own


def installed():
    fmt = "${db:Status-Abbrev}\t${Package}\t${Essential}\t${Priority}\t${Provides}\t${Pre-Depends}\t${Depends}\n"
    r = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True)
    pk = {}
    for line in r.stdout.splitlines():
        f = line.split("\t")
        if len(f) < 7 or not f[0].startswith("ii"):
            continue
        pk[f[1]] = {"essential": f[2] == "yes", "priority": f[3], "provides": f[4], "deps": f[5] + "," + f[6]}
    return pk


def names(field):
    """package names in a Depends-like field: every alternative, without versions or arches."""
    out = []
    for clause in field.split(","):
        for alt in clause.split("|"):
            n = re.sub(r"\(.*?\)|\[.*?\]|<.*?>", "", alt).strip().split(":")[0]
            if n:
                out.append(n)
    return out


def closure(pkgs, db):
    providers = defaultdict(list)
    for p, d in db.items():
        for v in names(d["provides"]):
            providers[v].append(p)
    seen, todo = set(), list(pkgs)
    while todo:
        p = todo.pop()
        for q in ([p] if p in db else []) + providers.get(p, []):
            if q in seen:
                continue
            seen.add(q)
            todo += names(db[q]["deps"])
    return seen


def outside(pkgs):
    db = installed()
    ok = closure(pkgs, db) | {p for p, d in db.items() if d["essential"] or d["priority"] == "required"}
    for p in sorted(set(db) - ok):
        r = subprocess.run(["dpkg", "-L", p], capture_output=True, text=True)
        for f in r.stdout.splitlines():
            if f.startswith("/usr/bin/") and os.path.isfile(f) and os.access(f, os.X_OK):
                print(p, f)
                return 0
    return 0


def main():
    if sys.argv[1] == "--outside":
        return outside(sys.argv[2:])
    log, tree, pkgs = sys.argv[1], [d for d in sys.argv[2].split(":") if d], sys.argv[3:]
    db = installed()
    missing_pkgs = [p for p in pkgs if p not in db]
    allowed = closure(pkgs, db)
    base = {p for p, d in db.items() if d["essential"] or d["priority"] == "required"}

    progs = {}    # program to look up -> how it was seen
    mods = {}     # module file -> (name, python)
    nlines = 0
    for line in open(log, encoding="utf-8", errors="surrogateescape"):
        f = line.rstrip("\n").split("\t")
        nlines += 1
        if f[0] == "exec" and len(f) == 3:
            path, foreign = f[1], f[2]
            if under(path, tree):
                continue
            if is_system(path):
                progs.setdefault(path, path if foreign == "-" else "%s (run by %s)" % (path, foreign))
            elif foreign == "-":
                name = os.path.basename(path)
                alt = next((os.path.join(d, name) for d in FRESH_PATH if os.path.exists(os.path.join(d, name))),
                           None)
                progs.setdefault(alt or "(none)/" + name, "%s (as %s on this machine)" % (name, path))
        elif f[0] == "pymod" and len(f) == 4:
            name, path, py = f[1], f[2], f[3]
            if is_system(os.path.realpath(py) if py else "") and not under(path, tree):
                mods.setdefault(path, (name, py))
    cand = set()
    for p in list(progs) + list(mods):
        cand.update(candidates(p))
    own = dpkg_owners(cand)

    def owner(p):
        return next((own[c] for c in candidates(p) if c in own), None)

    used = defaultdict(list)
    bad = []
    for p, how in sorted(progs.items()):
        o = owner(p)
        if not o:
            bad.append("program %s is not provided by any Debian package" % how)
        elif o not in allowed and o not in base:
            bad.append("program %s is in package %s, which scripts/install-deps.sh does not install" % (how, o))
        else:
            used[o].append(os.path.basename(p))
    for path, (name, py) in sorted(mods.items()):
        o = owner(path)
        if not o:
            bad.append("Python module %s (%s, imported by %s) is not from a Debian package" % (name, path, py))
        elif o not in allowed and o not in base:
            bad.append("Python module %s (%s) is in package %s, which scripts/install-deps.sh does not install"
                       % (name, path, o))
        else:
            used[o].append("python:" + name)
    for p in missing_pkgs:
        bad.append("the installer's package %s is not installed here" % p)
    for o in sorted(used):
        why = "listed" if o in pkgs else "dependency" if o in allowed else "base system"
        shown = sorted(set(used[o]))
        print("uses %s (%s): %s%s" % (o, why, " ".join(shown[:8]), " ..." if len(shown) > 8 else ""))
    print("%d log lines, %d programs, %d Python module files, %d packages" % (nlines, len(progs), len(mods), len(used)))
    for b in bad:
        print("MISSING: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
