"""sitecustomize for tests/deps: on PYTHONPATH while make check gathers its exec log.

At exit, every Python process appends to FLY_EXECLOG one line per top-level module it
imported from a file: "pymod<TAB>NAME<TAB>FILE<TAB>INTERPRETER", so tests/deps/check.py
can find the Debian package of each (python3-torch, python3-numpy, the standard library);
modules the interpreter loaded before this file ran are left out.
Then the interpreter's own sitecustomize, if any, runs as it would have.
"""
import atexit
import os
import sys

# Modules already loaded when site runs this file were loaded by the interpreter's start-up
# (the standard library and the .pth files of whatever is installed, e.g. setuptools'
# distutils-precedence.pth importing _distutils_hack): they depend on the machine, not on
# what make check runs, so they are not counted as used.
_AT_START = set(sys.modules)


def _fly_execlog_modules():
    log = os.environ.get("FLY_EXECLOG")
    if not log:
        return
    lines = []
    for name, mod in list(sys.modules.items()):
        f = getattr(mod, "__file__", None)
        if "." in name or not isinstance(f, str) or name in _AT_START:
            continue
        lines.append("pymod\t%s\t%s\t%s\n" % (name, os.path.abspath(f), sys.executable))
    try:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, "".join(lines).encode("utf-8", "surrogateescape"))  # one write
        finally:
            os.close(fd)
    except OSError:
        pass


atexit.register(_fly_execlog_modules)


def _chain():
    here = os.path.dirname(os.path.abspath(__file__))
    import importlib.machinery
    import importlib.util
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec and spec.loader and spec.origin != os.path.abspath(__file__):
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
        except Exception:
            pass


_chain()
