#!/usr/bin/python3
# Compares `flyc eval` with NVIDIA CuTe on every case of cute.tsv (see
# scripts/cute-oracle/gen.py for how the data is made).  Called by
# compare.sh; standard library only.
#
# static and cute rows: the expression as written.  Dynamic form (CuTe with
# run-time `int` leaves): the dynamic row where there is one, else (gen.py
# writes it only where CuTe printed differently) the static row's result,
# for every static case but the reparse and out-of-domain ones.  Each
# literal CuTe had as an int is replaced by a fresh
# run-time name (dynamic_form), flyc evaluates that, and its printed result
# with the names' values put in and every leaf expression evaluated
# (substitute) must equal CuTe's printed text.
#
#   compare.py FLYC [--update-known] [--report]
#
# A case matches when flyc prints exactly CuTe's (normalised) result, or
# CuTe's result is "error"/"out-of-domain" and flyc prints "error: ...".
# Known mismatches (known-mismatch.txt, "op<TAB>expr" lines; dynamic rows in
# known-mismatch-dynamic.txt) are tolerated;
# a mismatch not in the list fails its operation, and so does a listed case
# that now matches (the list only shrinks) or that is no longer in the data.
#
# Output, one line each, fields separated by tabs: "pass NAME",
# "fail NAME DETAIL...", "info TEXT..." (the summary).
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'cute.tsv')
KNOWN = os.path.join(HERE, 'known-mismatch.txt')
KNOWN_DYN = os.path.join(HERE, 'known-mismatch-dynamic.txt')
SHOW = 5

# ---------------------------------------------------------------- dynamic form
# Which integer literals of a flyc expression were CuTe `int`s in the dynamic
# C++ (scripts/cute-oracle/gen.py, cpp(x, 1)): every shape, stride, tiler,
# coordinate and cotarget leaf; not the template arguments: swizzle(B,M,S),
# the coalesce profile, the make_ordered_layout order, the upcast/downcast
# factor and the mode indices of get/take/select/group.
STATIC_ARGS = {'swizzle': 0, 'coalesce': 1, 'make_ordered_layout': 1, 'upcast': 1,
               'downcast': 1, 'get': 1, 'take': 1, 'select': 1, 'group': 1}
TOK = re.compile(r'\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9.]*)|(<<|>>|.))')

def tokens(text):
    pos, out = 0, []
    text = text.rstrip()
    while pos < len(text):
        m = TOK.match(text, pos)
        out.append((m.group(1), m.group(2), m.group(3), m.start(1) if m.group(1) else None))
        pos = m.end()
    return out

def dynamic_form(expr):
    """expr with each dynamic leaf literal replaced by a fresh name d0, d1, ...;
    returns (text, {name: value})."""
    toks = tokens(expr)
    stack, out, vals, last = [], [], {}, 0
    prev_name = None
    for num, name, op, at in toks:
        if op == '(':
            stack.append([prev_name, 0])
        elif op in (')', ']') and stack:
            stack.pop()
        elif op == '[':
            stack.append([None, 0])
        elif op == ',' and stack:
            stack[-1][1] += 1
        if num is not None:
            static = any(f[0] in STATIC_ARGS and f[1] >= STATIC_ARGS[f[0]] for f in stack)
            if not static:
                n = 'd%d' % len(vals)
                vals[n] = int(num)
                out.append(expr[last:at])
                out.append(n)
                last = at + len(num)
        prev_name = name
    out.append(expr[last:])
    return ''.join(out), vals

# ---------------------------------------------------------------- flyc's result at given values
# flyc prints a run-time leaf as an expression (lay_core.c put_expr): + - * / %
# (truncating, as C), ceil_div(a,b) = (a+b-1)/b, min, max, ^ & | << >>, unary -.
def _cdiv(a, b):
    return _div(a + b - 1, b)
def _div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q
def _mod(a, b):
    return a - b * _div(a, b)
def _shl(a, b):
    return a >> -b if b < 0 else a << b
BIN = {'+': (1, lambda a, b: a + b), '-': (1, lambda a, b: a - b), '*': (2, lambda a, b: a * b),
       '/': (2, _div), '%': (2, _mod), '^': (0, lambda a, b: a ^ b), '&': (0, lambda a, b: a & b),
       '|': (0, lambda a, b: a | b), '<<': (0, _shl), '>>': (0, lambda a, b: _shl(a, -b))}
FUN = {'ceil_div': _cdiv, 'min': min, 'max': max}

class Bad(Exception):
    pass

class Subst:
    def __init__(self, text, vals):
        self.t = [(n, m, o) for n, m, o, _ in tokens(text)]
        self.i, self.vals = 0, vals
    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None, None)
    def take(self, op=None):
        tok = self.peek()
        if op is not None and tok[2] != op:
            raise Bad('expected %s' % op)
        self.i += 1
        return tok
    def scalar(self, v):
        if v[0] == 'tuple' and len(v[1]) == 1:
            v = v[1][0]
        if v[0] != 'num':
            raise Bad('tuple in arithmetic')
        return v[1]
    def primary(self):
        num, name, op = self.take()
        if num is not None:
            return ('num', int(num))
        if op == '-':
            return ('num', -self.scalar(self.primary()))
        if op == '_':
            return ('raw', '_')
        if name is not None and name in FUN and self.peek()[2] == '(':
            self.take('(')
            a = self.scalar(self.elem())
            self.take(',')
            b = self.scalar(self.elem())
            self.take(')')
            return ('num', FUN[name](a, b))
        if name is not None:
            if name == '_':
                return ('raw', '_')
            if name not in self.vals:
                raise Bad('unknown name ' + name)
            return ('num', self.vals[name])
        if op == '(':
            es = []
            if self.peek()[2] != ')':
                es.append(self.elem())
                while self.peek()[2] == ',':
                    self.take()
                    es.append(self.elem())
            self.take(')')
            return ('tuple', es)
        raise Bad('unexpected %r' % (op,))
    def binary(self, minp):
        left = self.primary()
        while True:
            op = self.peek()[2]
            if op not in BIN or BIN[op][0] < minp:
                return left
            p, f = BIN[op]
            self.take()
            right = self.binary(p + 1)
            left = ('num', f(self.scalar(left), self.scalar(right)))
    def elem(self):
        return self.binary(0)

def render(v):
    if v[0] == 'num':
        return str(v[1])
    if v[0] == 'raw':
        return v[1]
    return '(' + ','.join(render(e) for e in v[1]) + ')'

def substitute(got, vals):
    """flyc's printed result with its run-time leaves evaluated at vals, in
    flyc's notation; an error when a leaf divides by zero; None if it does
    not read."""
    if got.startswith('error'):
        return got
    parts = []
    try:
        for part in got.split(' o '):
            if re.fullmatch(r'Sw<-?\d+,-?\d+,-?\d+>', part):
                parts.append(part)
                continue
            s = Subst(part, vals)
            a = render(s.elem())
            if s.peek()[2] == ':':
                s.take()
                a += ':' + render(s.elem())
            if s.i != len(s.t):
                raise Bad('trailing text')
            parts.append(a)
    except ZeroDivisionError:
        # the leaf divides by a run-time zero: the generated code would
        # fail there, as CuTe's does (SIGFPE; its row says error)
        return 'error: division by zero at run time'
    except (Bad, IndexError):
        return None
    return ' o '.join(parts)

# ---------------------------------------------------------------- comparison
def load():
    rows, implied, dyn, head = [], [], {}, []
    with open(DATA) as fh:
        for line in fh:
            line = line.rstrip('\n')
            if line.startswith('#'):
                head.append(line)
                continue
            op, cls, form, expr, want = line.split('\t')[:5]
            if form in ('static', 'cute'):
                rows.append((op, cls, expr, want))
            if form == 'static' and op != 'reparse' and want != 'out-of-domain':
                implied.append((op, cls, expr, want))
            elif form == 'dynamic':
                dyn[(op, expr)] = (op, cls, expr, want)
    # gen.py writes a dynamic row only where CuTe printed differently from the
    # static form (never for an out-of-domain case): for every other static
    # case CuTe's dynamic result is the static one
    drows = [dyn.pop((r[0], r[2]), r) for r in implied]
    drows += list(dyn.values())
    return head, rows, drows

def load_known(path):
    known = set()
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                line = line.rstrip('\n')
                if line and not line.startswith('#'):
                    op, expr = line.split('\t', 1)
                    known.add((op, expr))
    return known

def run_flyc(flyc, exprs):
    p = subprocess.run([flyc, 'eval'], input=''.join(e + '\n' for e in exprs),
                       capture_output=True, text=True, timeout=240)
    out = p.stdout.split('\n')
    if out and out[-1] == '':
        out.pop()
    return out, p

def matches(want, got):
    if want in ('error', 'out-of-domain'):
        return got.startswith('error')
    return got == want

class Check:
    """one form's comparison: rows (op, cls, expr, want), flyc's text per row
    as compared (after substitution for dynamic rows) and its known list."""
    def __init__(self, form, path, prefix, rows, got, update, report):
        self.form, self.path, self.prefix = form, path, prefix
        known = load_known(path)
        self.ops, self.per, self.mism = [], {}, []
        for (op, cls, expr, want), g in zip(rows, got):
            if op not in self.per:
                self.ops.append(op)
                self.per[op] = {'n': 0, 'ok': 0, 'new': [], 'fixed': [], 'known': 0}
            s = self.per[op]
            s['n'] += 1
            ok = g is not None and matches(want, g)
            k = (op, expr) in known
            if ok:
                s['ok'] += 1
                if k:
                    s['fixed'].append(expr)
            else:
                self.mism.append((op, cls, expr, want, g))
                if k:
                    s['known'] += 1
                else:
                    s['new'].append((expr, want, g))
            if report and not ok:
                print('info\tMISMATCH\t%s\t%s\t%s\t%s\twant %s\tgot %s' % (form, op, cls, expr, want, g))
        if update:
            self.write()
            known = {(m[0], m[2]) for m in self.mism}
            for op in self.ops:
                self.per[op]['known'] = len(self.per[op]['new']) + self.per[op]['known']
                self.per[op]['new'], self.per[op]['fixed'] = [], []
        present = {(r[0], r[2]) for r in rows}
        self.stale = sorted(known - present)

    def write(self):
        name = os.path.basename(self.path)
        with open(self.path, 'w') as fh:
            fh.write('# Cases of cute.tsv (%s rows) where flyc eval differs from CuTe today (op, expression).\n' % self.form)
            fh.write('# Written by tests/layout/oracle/compare.sh --update-known; the list may only shrink:\n')
            fh.write('# compare fails on a mismatch not listed here and on a listed case that matches.\n')
            if self.form == 'dynamic':
                fh.write('# Why each group differs: docs/layout-algebra.md, "Differences from CuTe".\n')
            for op, cls, expr, want, g in self.mism:
                fh.write('%s\t%s\n' % (op, expr))

    def summary(self, what):
        total = sum(self.per[o]['n'] for o in self.ops)
        ok = sum(self.per[o]['ok'] for o in self.ops)
        nk = sum(self.per[o]['known'] for o in self.ops)
        print('info\toracle: flyc eval matches CuTe on %d of %d %s (%.1f%%)'
              % (ok, total, what, 100.0 * ok / max(total, 1)))
        if nk:
            print('info\toracle: *** %d KNOWN MISMATCHES tolerated (tests/layout/oracle/%s) ***'
                  % (nk, os.path.basename(self.path)))
        listname = os.path.basename(self.path)
        for op in self.ops:
            s = self.per[op]
            name = 'oracle/%s%s (%d/%d match, %d known)' % (self.prefix, op, s['ok'], s['n'], s['known'])
            detail = []
            for expr, want, g in s['new'][:SHOW]:
                detail.append('%s   CuTe: %s   flyc: %s' % (expr, want, g))
            if len(s['new']) > SHOW:
                detail.append('... %d new mismatches in all' % len(s['new']))
            for expr in s['fixed'][:SHOW]:
                detail.append('now matches, remove from %s (compare.sh --update-known): %s' % (listname, expr))
            if len(s['fixed']) > SHOW:
                detail.append('... %d listed cases now match' % len(s['fixed']))
            if detail:
                print('fail\t' + name + '\t' + '\t'.join(detail))
            else:
                print('pass\t' + name)
        if self.stale:
            print('fail\toracle/%sknown-mismatch-stale\t%d cases listed in %s are not in cute.tsv, e.g. %s'
                  % (self.prefix, len(self.stale), listname, self.stale[0][1]))

def main():
    flyc = sys.argv[1]
    update = '--update-known' in sys.argv
    report = '--report' in sys.argv
    head, rows, drows = load()
    forms = [dynamic_form(r[2]) for r in drows]
    exprs = [r[2] for r in rows] + [f[0] for f in forms]
    got, p = run_flyc(flyc, exprs)
    if len(got) != len(exprs):
        print('fail\toracle/flyc-eval\tflyc eval printed %d lines for %d expressions (exit %d)\t%s'
              % (len(got), len(exprs), p.returncode, p.stderr[-400:].replace('\n', ' ')))
        return
    sgot, dgot = got[:len(rows)], got[len(rows):]
    # a dynamic result is compared with its run-time leaves evaluated; one
    # that does not read as a flyc result compares as None (a mismatch)
    dsub = [substitute(g, f[1]) for g, f in zip(dgot, forms)]
    for l in head:
        if l.startswith('# source:'):
            print('info\toracle ' + l[2:])
    st = Check('static', KNOWN, '', rows, sgot, update, report)
    dy = Check('dynamic', KNOWN_DYN, 'dynamic/', drows, dsub, update, report)
    st.summary('static cases')
    dy.summary('dynamic cases (run-time leaves)')

if __name__ == '__main__':
    main()
