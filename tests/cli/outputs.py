"""outputs.py — checks that a file flyc wrote parses as what it claims to be (tests/cli/run.sh).

  outputs.py svg FILE.svg OUT.png   XML parser (an <svg> root in the SVG namespace with integer
                                    width and height), then rsvg-convert draws it to OUT.png,
                                    whose PNG header must hold the same width and height
  outputs.py json FILE              one JSON document (json.load), printed back compactly
  outputs.py jsonl FILE             one JSON object per line (diagnostics), printed back
  outputs.py dep FLYC DIR NAME...   for each NAME, a main module and an imported module in
                                    DIR/NAME/ (a folder named NAME), compiled with -MD -MF -MP;
                                    make must read the depfile: the output is up to date, and
                                    out of date after touching either source. Prints one line
                                    per NAME: "ok", or "refused: MESSAGE" when flyc refuses
                                    the name with an error and writes no depfile, or "BAD ..."

Exit status 1 (with the reason on stderr) when a check fails.
"""
import json
import os
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET


def die(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def check_svg(path, png):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        die("%s: not well-formed XML: %s" % (path, e))
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        die("%s: root element is %s, not an SVG <svg>" % (path, root.tag))
    try:
        w, h = int(root.get("width")), int(root.get("height"))
    except (TypeError, ValueError):
        die("%s: width/height are not integers: %r %r" % (path, root.get("width"), root.get("height")))
    title = root.find("{http://www.w3.org/2000/svg}title")
    r = subprocess.run(["rsvg-convert", "-o", png, path], capture_output=True, text=True)
    if r.returncode != 0:
        die("rsvg-convert refused %s (exit %d): %s" % (path, r.returncode, r.stderr.strip()))
    with open(png, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        die("%s: rsvg-convert did not write a PNG" % png)
    pw, ph = struct.unpack(">II", head[16:24])
    if (pw, ph) != (w, h):
        die("%s: PNG is %dx%d, the SVG says %dx%d" % (png, pw, ph, w, h))
    print("svg %dx%d title %r" % (w, h, title.text if title is not None else None))


def check_dep(flyc, top, names):
    bad = 0
    for name in names:
        d = os.path.join(top, name)
        os.makedirs(os.path.join(d, "inc"), exist_ok=True)
        mod, main = os.path.join(d, "inc", "m.fly"), os.path.join(d, "main.fly")
        out, dep = os.path.join(d, "out.hsaco"), os.path.join(top, "dep.d")
        with open(mod, "w") as f:
            f.write("const C = 1;\n")
        with open(main, "w") as f:
            f.write("import m;\nconst D = m.C;\n")
        if os.path.exists(dep):
            os.unlink(dep)
        r = subprocess.run([flyc, "-fsyntax-only", "-I", os.path.join(d, "inc"), "-MD", "-MF", dep, "-MP",
                            main, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            if os.path.exists(dep):
                print("BAD %r: flyc failed (%s) but wrote a depfile" % (name, r.stderr.strip()))
                bad += 1
            elif "make cannot read the file name" not in r.stderr:
                print("BAD %r: flyc failed: %s" % (name, r.stderr.strip()))
                bad += 1
            else:
                print("refused %r: %s" % (name, r.stderr.strip().splitlines()[0]))
            continue
        with open(os.path.join(top, "Makefile"), "w") as f:
            f.write("include dep.d\n%:: ; @:\n")  # every target gets a recipe, so -q compares times
        for p in (main, mod):
            os.utime(p, (1.0e9, 1.0e9))
        open(out, "w").close()
        os.utime(out, (1.1e9, 1.1e9))

        def q():
            return subprocess.run(["make", "-s", "-q", "--no-print-directory", "-C", top, out],
                                  capture_output=True, text=True)
        got = [q()]
        for p in (main, mod):
            os.utime(p, (1.2e9, 1.2e9))
            got.append(q())
            os.utime(p, (1.0e9, 1.0e9))
        rcs = [g.returncode for g in got]
        if rcs != [0, 1, 1]:
            with open(dep) as f:
                text = f.read()
            print("BAD %r: make -q gave %s (want [0, 1, 1]): %s\n%s" % (
                name, rcs, " ".join(g.stderr.strip() for g in got), text))
            bad += 1
        else:
            print("ok %r" % name)
    if bad:
        sys.exit(1)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "svg":
        check_svg(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "json":
        with open(sys.argv[2], encoding="utf-8") as f:
            try:
                print(json.dumps(json.load(f), sort_keys=True))
            except ValueError as e:
                die("%s: not JSON: %s" % (sys.argv[2], e))
    elif len(sys.argv) == 3 and sys.argv[1] == "jsonl":
        with open(sys.argv[2], encoding="utf-8") as f:
            for i, line in enumerate(f):
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    die("%s:%d: not a JSON object: %s: %r" % (sys.argv[2], i + 1, e, line))
                if not isinstance(obj, dict):
                    die("%s:%d: not a JSON object" % (sys.argv[2], i + 1))
                print(json.dumps(obj, sort_keys=True, ensure_ascii=False))
    elif len(sys.argv) >= 5 and sys.argv[1] == "dep":
        check_dep(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        die(__doc__)


main()
