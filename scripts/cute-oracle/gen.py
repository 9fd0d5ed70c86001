#!/usr/bin/python3
# CuTe oracle for flyc's layout algebra (flyc issue #13, item 2).
#
# Generates layout-algebra expressions (seeded, deterministic), writes each
# one twice: as `flyc eval` text and as a C++ expression over NVIDIA CuTe,
# compiles the C++ host-only with g++-12 against a CUTLASS checkout (stub
# CUDA headers in scripts/cute-oracle/stubs/), runs it and records CuTe's
# printed results in tests/layout/oracle/cute.tsv.
#
#   scripts/cute-oracle/gen.sh CUTLASS_DIR        (the usual entry point)
#   /usr/bin/python3 scripts/cute-oracle/gen.py --cutlass DIR [--out FILE]
#       [--jobs N] [--batch N] [--only OP,OP] [--list]
#
# Forms.  "static": every leaf is CuTe's Int<N>; "dynamic": every shape and
# stride leaf is a run-time int (mode indices and upcast/downcast factors stay
# template arguments).  A dynamic row is written only when its printed
# result differs from the static one.  The only normalisation of CuTe's
# output is removing the '_' of static integers (_4 -> 4).
#
# Results.  CuTe's printed value; "error" when CuTe rejects the expression
# (a static_assert or other compile error, or a run-time assert);
# "out-of-domain" when the arguments violate a precondition CuTe documents
# but does not check (complement / left_inverse of a non-injective layout,
# negative strides where a complement is taken, a result that breaks the
# operation's documented postcondition).  flyc must print an error for both.
#
# Standard library only; runs with /usr/bin/python3.
import argparse, os, random, re, subprocess, sys, tempfile, zlib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

# ---------------------------------------------------------------- values
# An int tuple is an int or a Python tuple of int tuples (a 1-tuple is
# CuTe's rank-1 tuple).  A layout is ('L', shape, stride).  A tiler is a
# layout, an int, '_' or ('T', [tilers]) (by-mode, flyc's [a, b]).

def is_layout(x):
    return isinstance(x, tuple) and len(x) == 3 and x[0] == 'L'

def leaves(x):
    if isinstance(x, int):
        return [x]
    out = []
    for e in x:
        out += leaves(e)
    return out

def size(x):
    n = 1
    for v in leaves(x):
        n *= v
    return n

def depth(x):
    return 0 if isinstance(x, int) else 1 + max([depth(e) for e in x] + [0])

def unflatten(flat, like):
    it = iter(flat)
    def go(t):
        if isinstance(t, int):
            return next(it)
        return tuple(go(e) for e in t)
    return go(like)

def compact(shape, order=None):
    """col-major compact strides, leaves visited in ORDER (a permutation)."""
    fl = leaves(shape)
    idx = list(range(len(fl))) if order is None else order
    st = [0] * len(fl)
    cur = 1
    for i in idx:
        st[i] = cur
        cur *= fl[i]
    return unflatten(st, shape)

# text for flyc eval
def fly(x):
    if x == '_':
        return '_'
    if isinstance(x, int):
        return str(x)
    if is_layout(x):
        return fly(x[1]) + ':' + fly(x[2])
    if isinstance(x, tuple) and len(x) == 2 and x[0] == 'T':
        return '[' + ', '.join(fly(e) for e in x[1]) + ']'
    if len(x) == 1:
        return '(' + fly(x[0]) + ',)'
    return '(' + ','.join(fly(e) for e in x) + ')'

# text for C++ (CuTe); dyn: leaves are run-time ints
def cpp(x, dyn):
    if x == '_':
        return '_'
    if isinstance(x, int):
        return 'int(%d)' % x if dyn else 'Int<%d>{}' % x
    if is_layout(x):
        return 'make_layout(%s, %s)' % (cpp(x[1], dyn), cpp(x[2], dyn))
    if isinstance(x, tuple) and len(x) == 2 and x[0] == 'T':
        return 'make_tile(' + ', '.join(cpp(e, dyn) for e in x[1]) + ')'
    return 'cute::make_tuple(' + ', '.join(cpp(e, dyn) for e in x) + ')'

# ---------------------------------------------------------------- layout functions
def crd_split(i, shape):
    """colexicographic coordinate of index i in shape (flat list of leaves)."""
    out = []
    for s in shape:
        out.append(i % s)
        i //= s
    return out

def offsets(L):
    sh, st = leaves(L[1]), leaves(L[2])
    n = size(L[1])
    res = []
    for i in range(n):
        c = crd_split(i, sh)
        res.append(sum(a * b for a, b in zip(c, st)))
    return res

def offset_at(L, x):
    """L(x) for an integer x, the last mode taking what is left (CuTe's idx2crd)."""
    sh, st = leaves(L[1]), leaves(L[2])
    tot = 0
    for k, (a, d) in enumerate(zip(sh, st)):
        c = x if k == len(sh) - 1 else x % a
        x //= a
        tot += c * d
    return tot

def filtered(L):
    """the (shape, stride) leaf pairs of filter(L): no stride-0, no size-1."""
    return [(s, d) for s, d in zip(leaves(L[1]), leaves(L[2])) if s != 1 and d != 0]

def injective(L):
    o = offsets(L)
    return len(set(o)) == len(o)

def filter_injective(L):
    f = filtered(L)
    if not f:
        return True
    return injective(('L', tuple(s for s, _ in f), tuple(d for _, d in f)))

def nonneg(L):
    return all(d >= 0 for d in leaves(L[2]))

# parse CuTe's printed (already normalised) value back
def parse_value(text):
    pos = [0]
    def peek():
        return text[pos[0]] if pos[0] < len(text) else ''
    def tup():
        if peek() == '(':
            pos[0] += 1
            es = [tup()]
            while peek() == ',':
                pos[0] += 1
                es.append(tup())
            if peek() != ')':
                raise ValueError(text)
            pos[0] += 1
            return tuple(es)
        m = re.match(r'-?\d+', text[pos[0]:])
        if not m:
            raise ValueError(text)
        pos[0] += m.end()
        return int(m.group(0))
    a = tup()
    if peek() == ':':
        pos[0] += 1
        b = tup()
        if pos[0] != len(text):
            raise ValueError(text)
        return ('L', a, b)
    if pos[0] != len(text):
        raise ValueError(text)
    return a

# ---------------------------------------------------------------- generators
CLASSES = ['size1', 'zero', 'neg', 'nested', 'rank1', 'rank3', 'int', 'plain']

class G:
    def __init__(self, r):
        self.r = r

    def leaf(self, one=0.1):
        r = self.r
        if r.random() < one:
            return 1
        return r.choice([2, 2, 2, 3, 4, 4, 4, 5, 6, 8, 8])

    def shape(self, cls, maxsize=384):
        r = self.r
        for _ in range(200):
            s = self._shape(cls)
            if size(s) <= maxsize and (cls != 'int' or isinstance(s, int)):
                return s
        return 4

    def _shape(self, cls):
        r = self.r
        one = 0.35 if cls == 'size1' else 0.07
        if cls == 'int':
            return self.leaf(one)
        def sub(d):
            if d == 0 or r.random() < 0.55:
                return self.leaf(one)
            n = r.choice([1, 2, 2, 2, 3]) if cls != 'rank1' else r.choice([1, 1, 2])
            return tuple(sub(d - 1) for _ in range(n))
        if cls == 'rank1':
            k = r.random()
            if k < 0.4:
                return (sub(1 if r.random() < 0.5 else 0),)
            return tuple(sub(1) if r.random() < 0.5 else (self.leaf(),) for _ in range(r.choice([2, 2, 3])))
        if cls == 'rank3':
            return tuple(sub(1) for _ in range(r.choice([3, 3, 4])))
        if cls == 'nested':
            s = tuple(sub(2) for _ in range(r.choice([1, 2, 2, 3])))
            if depth(s) < 2:
                s = (s[0], (self.leaf(), self.leaf())) + s[1:]
            return s
        return tuple(sub(1) for _ in range(r.choice([1, 2, 2, 2, 3])))

    def stride(self, shape, cls):
        r = self.r
        fl = leaves(shape)
        k = r.random()
        if k < 0.3:
            st = leaves(compact(shape))
        elif k < 0.5:
            order = list(range(len(fl)))
            r.shuffle(order)
            st = leaves(compact(shape, order))
        elif k < 0.7:
            order = list(range(len(fl)))
            r.shuffle(order)
            st = [0] * len(fl)
            cur = 1
            for i in order:
                cur *= r.choice([1, 1, 2, 3])
                st[i] = cur
                cur *= fl[i]
        else:
            st = [r.choice([0, 1, 1, 2, 3, 4, 6, 8, 12, 16]) for _ in fl]
        if cls == 'zero':
            for i in range(len(st)):
                if r.random() < 0.4:
                    st[i] = 0
        if cls == 'neg':
            for i in range(len(st)):
                if r.random() < 0.5:
                    st[i] = -st[i] if st[i] else -1
        return unflatten(st, shape)

    def layout(self, cls=None, maxsize=384):
        cls = cls or self.r.choice(CLASSES)
        s = self.shape(cls, maxsize)
        return ('L', s, self.stride(s, cls))

    def compact_layout(self, size_hint=None, cls='plain'):
        s = self.shape(cls, 64)
        return ('L', s, self.stride(s, 'plain'))

    def divisor(self, n):
        ds = [d for d in range(1, n + 1) if n % d == 0]
        return self.r.choice(ds)

    def tile_for(self, mode_shape, kind):
        """a tiler layout for a mode of size n"""
        r = self.r
        n = size(mode_shape)
        if kind == 'int':
            return self.divisor(n) if r.random() < 0.85 else r.choice([2, 3, 4, 5])
        if r.random() < 0.5:
            t = self.divisor(n)
            return ('L', t, r.choice([1, 1, 1, 2]) if t > 1 else r.choice([0, 1]))
        # a two-mode tile
        a = self.divisor(n)
        b = self.divisor(max(1, n // a))
        sa = r.choice([1, b])
        return ('L', (a, b), (sa, a if sa == 1 else 1))

    def tiler(self, A, kind):
        """kind: layout / int / bymode / plain / rank1"""
        r = self.r
        sh = A[1]
        modes = list(sh) if isinstance(sh, tuple) else [sh]
        if kind == 'layout':
            return self.tile_for(sh, 'layout')
        if kind == 'int':
            return self.tile_for(sh, 'int')
        k = r.randint(1, len(modes))
        if kind == 'bymode':
            es = []
            for m in modes[:k]:
                es.append('_' if r.random() < 0.12 else self.tile_for(m, 'layout' if r.random() < 0.7 else 'int'))
            return ('T', es)
        if kind == 'rank1':
            return (self.tile_for(modes[0], 'int'),)
        return tuple(self.tile_for(m, 'int') for m in modes[:max(k, 2 if len(modes) > 1 else 1)])

# ---------------------------------------------------------------- operations
# Each op: gen(g, i) -> list of (class, args); each arg a value.  The
# expression texts are built from a flyc template and a C++ template.

def A(g, i):
    cls = CLASSES[i % len(CLASSES)]
    return cls, g.layout(cls)

TILER_KINDS = ['layout', 'int', 'bymode', 'plain', 'rank1']

def case_list():
    ops = []
    def op(name, n=110):
        def deco(f):
            ops.append((name, n, f))
            return f
        return deco

    # unary on a layout
    for name in ['coalesce', 'filter', 'filter_zeros', 'size', 'cosize', 'rank', 'depth',
                 'flatten', 'right_inverse', 'left_inverse', 'complement', 'nullspace',
                 'max_alignment', 'shape', 'stride']:
        def mk(name):
            def f(g, i):
                cls, L = A(g, i)
                if name in ('left_inverse', 'right_inverse', 'complement', 'nullspace', 'max_alignment') and cls == 'neg' and i % 3:
                    cls, L = 'plain', g.layout('plain')
                return cls, (name + '(%s)' % fly(L), name + '(%s)' % cpp(L, 0), name + '(%s)' % cpp(L, 1)), (L,)
            return f
        op(name)(mk(name))

    @op('coalesce_profile')
    def _(g, i):
        cls = ['nested', 'rank3', 'rank1', 'size1', 'plain'][i % 5]
        L = g.layout(cls)
        sh = L[1] if isinstance(L[1], tuple) else (L[1],)
        prof = tuple((1,) if (isinstance(m, tuple) and g.r.random() < 0.4) else 1 for m in sh[:g.r.randint(1, len(sh))])
        if g.r.random() < 0.3:
            prof = tuple(1 for _ in sh)
        return cls, ('coalesce(%s, %s)' % (fly(L), fly(prof)),
                     'coalesce(%s, %s)' % (cpp(L, 0), cpp(prof, 0)),
                     'coalesce(%s, %s)' % (cpp(L, 1), cpp(prof, 0))), (L,)

    @op('complement_cotarget')
    def _(g, i):
        cls, L = A(g, i)
        if cls == 'neg' and i % 3:
            cls, L = 'plain', g.layout('plain')
        cs = max(1, max(offsets(L) + [0]) + 1)
        k = g.r.random()
        if k < 0.5:
            M = cs * g.r.choice([1, 1, 2, 3, 4])
        elif k < 0.8:
            M = (g.r.choice([2, 4, 8]), g.r.choice([2, 4, 8, 16]))
        else:
            M = g.r.choice([1, 2, 7, 24, 64])
        return cls, ('complement(%s, %s)' % (fly(L), fly(M)),
                     'complement(%s, %s)' % (cpp(L, 0), cpp(M, 0)),
                     'complement(%s, %s)' % (cpp(L, 1), cpp(M, 1))), (L,)

    @op('composition', 220)
    def _(g, i):
        cls, Lx = A(g, i)
        k = i % 4
        if k == 0:   # B a layout into A's domain
            n = size(Lx[1])
            s = g.shape(g.r.choice(['plain', 'nested', 'rank1', 'size1', 'int', 'rank3']), 64)
            for _ in range(20):
                if n % size(s) == 0 or size(s) <= n:
                    break
                s = g.shape('plain', 64)
            B = ('L', s, g.stride(s, g.r.choice(['plain', 'plain', 'zero'])))
            kind = 'layout'
        elif k == 1:
            B = g.divisor(size(Lx[1])) if g.r.random() < 0.8 else g.r.choice([2, 3, 4])
            kind = 'int'
        elif k == 2:
            B = g.tiler(Lx, 'bymode')
            kind = 'bymode'
        else:
            B = g.tiler(Lx, 'layout')
            kind = 'layout'
        return cls + '/' + kind, ('composition(%s, %s)' % (fly(Lx), fly(B)),
                                  'composition(%s, %s)' % (cpp(Lx, 0), cpp(B, 0)),
                                  'composition(%s, %s)' % (cpp(Lx, 1), cpp(B, 1))), (Lx, B)

    for name in ['logical_divide', 'zipped_divide', 'tiled_divide', 'flat_divide']:
        def mk(name):
            def f(g, i):
                cls, Lx = A(g, i)
                kind = TILER_KINDS[(i // len(CLASSES)) % len(TILER_KINDS)]
                T = g.tiler(Lx, kind)
                return cls + '/' + kind, ('%s(%s, %s)' % (name, fly(Lx), fly(T)),
                                          '%s(%s, %s)' % (name, cpp(Lx, 0), cpp(T, 0)),
                                          '%s(%s, %s)' % (name, cpp(Lx, 1), cpp(T, 1))), (Lx, T)
            return f
        op(name, 120)(mk(name))

    for name in ['logical_product', 'zipped_product', 'tiled_product', 'flat_product',
                 'blocked_product', 'raked_product']:
        def mk(name):
            def f(g, i):
                cls = CLASSES[i % len(CLASSES)]
                if cls == 'neg' and i % 3:
                    cls = 'plain'
                Lx = g.layout(cls, 48)
                kind = ['layout', 'bymode', 'int', 'plain'][(i // len(CLASSES)) % 4]
                if name in ('blocked_product', 'raked_product'):
                    kind = 'layout'
                if kind == 'layout':
                    s = g.shape(g.r.choice(['plain', 'int', 'rank1', 'size1', 'nested', 'rank3']), 16)
                    B = ('L', s, g.stride(s, g.r.choice(['plain', 'plain', 'zero'])))
                elif kind == 'int':
                    B = g.r.choice([1, 2, 3, 4])
                elif kind == 'plain':
                    sh = Lx[1] if isinstance(Lx[1], tuple) else (Lx[1],)
                    B = tuple(g.r.choice([1, 2, 3]) for _ in sh[:g.r.randint(1, len(sh))])
                else:
                    sh = Lx[1] if isinstance(Lx[1], tuple) else (Lx[1],)
                    es = []
                    for _ in sh[:g.r.randint(1, len(sh))]:
                        s = g.shape(g.r.choice(['plain', 'int', 'int', 'rank1']), 8)
                        es.append(('L', s, g.stride(s, 'plain')))
                    B = ('T', es)
                return cls + '/' + kind, ('%s(%s, %s)' % (name, fly(Lx), fly(B)),
                                          '%s(%s, %s)' % (name, cpp(Lx, 0), cpp(B, 0)),
                                          '%s(%s, %s)' % (name, cpp(Lx, 1), cpp(B, 1))), (Lx, B)
            return f
        op(name)(mk(name))

    @op('apply')
    def _(g, i):
        cls, L = A(g, i)
        sh = L[1]
        n = size(sh)
        k = i % 3
        if k == 0:
            c = g.r.randrange(n)
        else:
            def crd(s, top):
                if isinstance(s, int):
                    return g.r.randrange(s)
                if not top and g.r.random() < 0.4:
                    return g.r.randrange(size(s))
                return tuple(crd(e, False) for e in s)
            c = crd(sh, True)
        if isinstance(c, int):
            ft, ct, cd = fly(c), cpp(c, 0), cpp(c, 1)
        else:
            ft = fly(c)
            ct = cpp(c, 0).replace('cute::make_tuple', 'make_coord', 1)
            cd = cpp(c, 1).replace('cute::make_tuple', 'make_coord', 1)
        return cls, ('(%s)(%s)' % (fly(L), ft), '%s(%s)' % (cpp(L, 0), ct), '%s(%s)' % (cpp(L, 1), cd)), (L,)

    @op('slice')
    def _(g, i):
        cls, L = A(g, i)
        sh = L[1] if isinstance(L[1], tuple) else (L[1],)
        c = tuple('_' if g.r.random() < 0.5 else g.r.randrange(size(m)) for m in sh)
        name = 'slice' if i % 2 == 0 else 'dice'
        return cls + '/' + name, ('%s(%s, %s)' % (name, fly(c), fly(L)),
                                  '%s(%s, %s)' % (name, cpp(c, 0), cpp(L, 0)),
                                  '%s(%s, %s)' % (name, cpp(c, 1), cpp(L, 1))), (L,)

    @op('get_take_select')
    def _(g, i):
        cls = ['rank3', 'nested', 'rank1', 'plain'][i % 4]
        L = g.layout(cls)
        sh = L[1] if isinstance(L[1], tuple) else (L[1],)
        R = len(sh)
        k = (i // 4) % 5
        if k == 0:
            j = g.r.randrange(R)
            f, c = 'get(%s, %d)' % (fly(L), j), 'get<%d>(%%s)' % j
        elif k == 1:
            b = g.r.randrange(R)
            e = g.r.randint(b + 1, R)
            f, c = 'take(%s, %d, %d)' % (fly(L), b, e), 'take<%d,%d>(%%s)' % (b, e)
        elif k == 2:
            js = [g.r.randrange(R) for _ in range(g.r.randint(1, 3))]
            f = 'select(%s, %s)' % (fly(L), ', '.join(map(str, js)))
            c = 'select<%s>(%%s)' % ','.join(map(str, js))
        elif k == 3:
            b = g.r.randrange(R)
            e = g.r.randint(b, R)
            f, c = 'group(%s, %d, %d)' % (fly(L), b, e), 'group<%d,%d>(%%s)' % (b, e)
        else:
            M = g.layout('int')
            fn = 'append' if g.r.random() < 0.5 else 'prepend'
            f = '%s(%s, %s)' % (fn, fly(L), fly(M))
            return cls + '/' + fn, (f, '%s(%s, %s)' % (fn, cpp(L, 0), cpp(M, 0)),
                                    '%s(%s, %s)' % (fn, cpp(L, 1), cpp(M, 1))), (L,)
        return cls + '/' + f.split('(')[0], (f, c % cpp(L, 0), c % cpp(L, 1)), (L,)

    @op('upcast_downcast')
    def _(g, i):
        cls, L = A(g, i)
        N = g.r.choice([2, 4, 8])
        name = 'upcast' if i % 2 == 0 else 'downcast'
        return cls + '/' + name, ('%s(%s, %d)' % (name, fly(L), N),
                                  '%s<%d>(%s)' % (name, N, cpp(L, 0)),
                                  '%s<%d>(%s)' % (name, N, cpp(L, 1))), (L,)

    @op('tile_to_shape')
    def _(g, i):
        cls = ['plain', 'rank1', 'size1', 'nested', 'int'][i % 5]
        B = g.layout(cls, 16)
        sh = B[1] if isinstance(B[1], tuple) else (B[1],)
        S = tuple(size(m) * g.r.choice([1, 2, 3, 4]) for m in sh) + tuple(g.r.choice([2, 4]) for _ in range(g.r.choice([0, 0, 1])))
        if g.r.random() < 0.1:
            S = tuple(v + 1 for v in S)
        return cls, ('tile_to_shape(%s, %s)' % (fly(B), fly(S)),
                     'tile_to_shape(%s, %s)' % (cpp(B, 0), cpp(S, 0)),
                     'tile_to_shape(%s, %s)' % (cpp(B, 1), cpp(S, 1))), (B,)

    for name in ['max_common_vector', 'max_common_layout']:
        def mk(name):
            def f(g, i):
                cls = ['plain', 'rank1', 'size1', 'nested', 'zero', 'rank3'][i % 6]
                L1 = g.layout(cls, 128)
                s = L1[1]
                if g.r.random() < 0.5:
                    L2 = ('L', s, g.stride(s, 'plain'))
                else:
                    L2 = ('L', s, compact(s))
                return cls, ('%s(%s, %s)' % (name, fly(L1), fly(L2)),
                             '%s(%s, %s)' % (name, cpp(L1, 0), cpp(L2, 0)),
                             '%s(%s, %s)' % (name, cpp(L1, 1), cpp(L2, 1))), (L1, L2)
            return f
        op(name)(mk(name))

    # int tuple operations
    def S(g, i):
        cls = ['plain', 'rank1', 'size1', 'nested', 'int', 'rank3'][i % 6]
        return cls, g.shape(cls)

    for name in ['product_each', 'compact_col_major', 'compact_row_major', 'make_layout']:
        def mk(name):
            def f(g, i):
                cls, s = S(g, i)
                return cls, ('%s(%s)' % (name, fly(s)), '%s(%s)' % (name, cpp(s, 0)), '%s(%s)' % (name, cpp(s, 1))), ()
            return f
        op(name)(mk(name))

    @op('make_layout_right')
    def _(g, i):
        cls, s = S(g, i)
        return cls, ('make_layout(%s, LayoutRight)' % fly(s), 'make_layout(%s, LayoutRight{})' % cpp(s, 0),
                     'make_layout(%s, LayoutRight{})' % cpp(s, 1)), ()

    @op('make_ordered_layout')
    def _(g, i):
        cls = ['plain', 'rank3', 'size1', 'rank1'][i % 4]
        s = g.shape(cls)
        if isinstance(s, int):
            s = (s,)
        o = list(range(len(s)))
        g.r.shuffle(o)
        o = tuple(o)
        return cls, ('make_ordered_layout(%s, %s)' % (fly(s), fly(o)),
                     'make_ordered_layout(%s, %s)' % (cpp(s, 0), cpp(o, 0)),
                     'make_ordered_layout(%s, %s)' % (cpp(s, 1), cpp(o, 0))), ()

    for name in ['size_tuple', 'rank_tuple', 'depth_tuple', 'flatten_tuple']:
        def mk(name):
            fn = name.split('_')[0]
            def f(g, i):
                cls, s = S(g, i)
                return cls, ('%s(%s)' % (fn, fly(s)), '%s(%s)' % (fn, cpp(s, 0)), '%s(%s)' % (fn, cpp(s, 1))), ()
            return f
        op(name)(mk(name))

    for name in ['shape_div', 'ceil_div']:
        def mk(name):
            def f(g, i):
                cls, a = S(g, i)
                k = g.r.random()
                if k < 0.5:
                    b = g.r.choice([1, 2, 3, 4, 6, 8, 12, 16, 24, 40])
                elif k < 0.8 and not isinstance(a, int):
                    b = tuple(g.r.choice([1, 2, 3, 4]) for _ in a)
                else:
                    b = g.leaf()
                return cls, ('%s(%s, %s)' % (name, fly(a), fly(b)), '%s(%s, %s)' % (name, cpp(a, 0), cpp(b, 0)),
                             '%s(%s, %s)' % (name, cpp(a, 1), cpp(b, 1))), ()
            return f
        op(name)(mk(name))

    @op('crd2idx')
    def _(g, i):
        cls, L = A(g, i)
        sh = L[1]
        def crd(s, top):
            if isinstance(s, int):
                return g.r.randrange(s)
            if not top and g.r.random() < 0.4:
                return g.r.randrange(size(s))
            return tuple(crd(e, False) for e in s)
        c = crd(sh, True) if i % 3 else g.r.randrange(size(sh))
        if i % 2:
            return cls + '/shape', ('crd2idx(%s, %s)' % (fly(c), fly(sh)), 'crd2idx(%s, %s)' % (cpp(c, 0), cpp(sh, 0)),
                                    'crd2idx(%s, %s)' % (cpp(c, 1), cpp(sh, 1))), ()
        return cls + '/stride', ('crd2idx(%s, %s, %s)' % (fly(c), fly(sh), fly(L[2])),
                                 'crd2idx(%s, %s, %s)' % (cpp(c, 0), cpp(sh, 0), cpp(L[2], 0)),
                                 'crd2idx(%s, %s, %s)' % (cpp(c, 1), cpp(sh, 1), cpp(L[2], 1))), ()

    @op('idx2crd')
    def _(g, i):
        cls, s = S(g, i)
        n = size(s)
        x = g.r.randrange(n) if g.r.random() < 0.9 else n + g.r.randrange(5)
        if i % 4 == 3:
            d = compact(s)
            return cls + '/stride', ('idx2crd(%d, %s, %s)' % (x, fly(s), fly(d)),
                                     'idx2crd(%s, %s, %s)' % (cpp(x, 0), cpp(s, 0), cpp(d, 0)),
                                     'idx2crd(%s, %s, %s)' % (cpp(x, 1), cpp(s, 1), cpp(d, 1))), ()
        return cls, ('idx2crd(%d, %s)' % (x, fly(s)), 'idx2crd(%s, %s)' % (cpp(x, 0), cpp(s, 0)),
                     'idx2crd(%s, %s)' % (cpp(x, 1), cpp(s, 1))), ()

    @op('inner_product')
    def _(g, i):
        cls, s = S(g, i)
        d = unflatten([g.r.randint(-3, 9) for _ in leaves(s)], s)
        return cls, ('inner_product(%s, %s)' % (fly(s), fly(d)), 'inner_product(%s, %s)' % (cpp(s, 0), cpp(d, 0)),
                     'inner_product(%s, %s)' % (cpp(s, 1), cpp(d, 1))), ()

    @op('with_shape')
    def _(g, i):
        cls, L = A(g, i)
        n = size(L[1])
        s = g.shape('plain', n)
        for _ in range(30):
            if size(s) <= n and n % size(s) == 0:
                break
            s = g.shape(g.r.choice(['plain', 'rank1', 'nested']), n)
        return cls, ('with_shape(%s, %s)' % (fly(L), fly(s)), '%s.with_shape(%s)' % (cpp(L, 0), cpp(s, 0)),
                     '%s.with_shape(%s)' % (cpp(L, 1), cpp(s, 1))), (L,)

    # swizzled (composed) layouts: Sw<B,M,S> o L
    def swz(g):
        r = g.r
        B = r.choice([1, 2, 2, 3])
        M = r.choice([0, 1, 2, 3])
        S = r.choice([B, B, B + 1, -B]) if r.random() < 0.9 else B + 2
        for _ in range(50):
            L = g.layout(r.choice(['plain', 'plain', 'nested', 'rank1', 'size1', 'rank3']), 512)
            if nonneg(L):
                break
        return (B, M, S), L

    def swz_text(sw, L, dyn=None):
        if dyn is None:
            return 'swizzle(%d,%d,%d) o %s' % (sw + (fly(L),))
        return 'composition(Swizzle<%d,%d,%d>{}, %s)' % (sw + (cpp(L, dyn),))

    @op('swizzle_layout')
    def _(g, i):
        sw, L = swz(g)
        return 'plain', (swz_text(sw, L), swz_text(sw, L, 0), swz_text(sw, L, 1)), (L,)

    @op('swizzle_apply')
    def _(g, i):
        sw, L = swz(g)
        x = g.r.randrange(size(L[1]))
        return 'plain', ('(%s)(%d)' % (swz_text(sw, L), x), '%s(%s)' % (swz_text(sw, L, 0), cpp(x, 0)),
                         '%s(%s)' % (swz_text(sw, L, 1), cpp(x, 1))), (L,)

    @op('swizzle_divide')
    def _(g, i):
        sw, L = swz(g)
        kind = ['layout', 'int', 'bymode', 'plain'][i % 4]
        T = g.tiler(L, kind)
        name = ['logical_divide', 'zipped_divide', 'tiled_divide', 'logical_product'][(i // 4) % 4]
        if name == 'logical_product' and kind == 'plain':
            T = g.tile_for(4, 'layout')
        return kind + '/' + name, ('%s(%s, %s)' % (name, swz_text(sw, L), fly(T)),
                                   '%s(%s, %s)' % (name, swz_text(sw, L, 0), cpp(T, 0)),
                                   '%s(%s, %s)' % (name, swz_text(sw, L, 1), cpp(T, 1))), (L, T)

    return ops

def cases(only=None):
    out = []
    for name, n, f in case_list():
        if only and name not in only:
            continue
        g = G(random.Random(zlib.crc32(name.encode())))
        seen = set()
        tries = 0
        while len([c for c in out if c['op'] == name]) < n and tries < n * 20:
            tries += 1
            cls, (fx, cs, cd), args = f(g, tries - 1)
            if fx in seen:
                continue
            seen.add(fx)
            out.append({'op': name, 'cls': cls, 'expr': fx, 'cpp': {'static': cs, 'dynamic': cd},
                        'args': args})
    return out

# ---------------------------------------------------------------- domain checks
def precondition(c):
    """'out-of-domain' when the arguments break a precondition CuTe does not check."""
    op, args = c['op'], c['args']
    if op in ('complement', 'complement_cotarget'):
        L = args[0]
        if not nonneg(L) or not filter_injective(L):
            return 'out-of-domain'
    if op in ('logical_divide', 'zipped_divide', 'tiled_divide', 'flat_divide'):
        T = args[1]
        ts = T[1] if isinstance(T, tuple) and T[0] == 'T' else [T]
        for t in ts:
            if is_layout(t) and (not nonneg(t) or not filter_injective(t)):
                return 'out-of-domain'
    if op in ('logical_product', 'zipped_product', 'tiled_product', 'flat_product',
              'blocked_product', 'raked_product'):
        Lx, B = args
        if isinstance(B, tuple) and B and (B[0] == 'T' or not is_layout(B)):   # by mode
            B = B if B[0] == 'T' else ('T', list(B))
            sh, st = Lx[1], Lx[2]
            if not isinstance(sh, tuple):
                sh, st = (sh,), (st,)
            for j in range(min(len(B[1]), len(sh))):
                m = ('L', sh[j], st[j])
                if not nonneg(m) or not filter_injective(m):
                    return 'out-of-domain'
        elif not nonneg(Lx) or not filter_injective(Lx):
            return 'out-of-domain'
    return None

def postcondition(c, text):
    """'out-of-domain' when CuTe's result breaks the operation's documented postcondition."""
    op, args = c['op'], c['args']
    try:
        R = parse_value(text)
    except ValueError:
        return None
    if not is_layout(R):
        return None
    if op == 'right_inverse':
        L = args[0]
        lo, ro = offsets(L), offsets(R)
        n = len(lo)
        for i, r in enumerate(ro):
            if not (0 <= r < n) or lo[r] != i:
                return 'out-of-domain'
    if op == 'left_inverse':   # @post L(R(L(i))) == L(i): a quasi-inverse
        L = args[0]
        lo = offsets(L)
        for o in lo:
            if o < 0:
                return 'out-of-domain'
            j = offset_at(R, o)
            if not (0 <= j < len(lo)) or lo[j] != o:
                return 'out-of-domain'
    if op in ('complement', 'complement_cotarget'):
        L = args[0]
        ro = offsets(R)
        if any(ro[k] >= ro[k + 1] for k in range(len(ro) - 1)):
            return 'out-of-domain'
        lo = offsets(L)
        f = filtered(L)
        lo = offsets(('L', tuple(s for s, _ in f), tuple(d for _, d in f))) if f else [0]
        seen = set()
        for b in ro:
            for a in lo:
                if a + b in seen:
                    return 'out-of-domain'
                seen.add(a + b)
    return None

# ---------------------------------------------------------------- CuTe driver
PROLOGUE = r'''// generated by scripts/cute-oracle/gen.py: one CuTe expression per function
#include <cute/layout.hpp>
#include <cute/swizzle_layout.hpp>
#include <cstdio>
#include <cstdlib>
using namespace cute;
'''

def driver(batch, form):
    lines = PROLOGUE.rstrip('\n').split('\n')
    first = len(lines) + 1
    lineno = {}
    for k, c in enumerate(batch):
        lineno[first + k] = k
        lines.append('static void c%d() { auto r = %s; print(r); }' % (k, c['cpp'][form]))
    lines.append('typedef void (*fn)();')
    lines.append('static fn cases[] = { %s };' % ', '.join('c%d' % k for k in range(len(batch))))
    lines.append(r'''int main(int argc, char **argv) {
  int n = (int)(sizeof cases / sizeof cases[0]);
  for (int k = argc > 1 ? atoi(argv[1]) : 0; k < n; k++) {
    printf("@@%d\n", k); fflush(stdout); cases[k](); printf("\n"); fflush(stdout);
  }
  printf("@@end\n");
  return 0;
}''')
    return '\n'.join(lines) + '\n', lineno

def compile_run(batch, form, cutlass, tmp, tag):
    """results for a batch: list of text or 'error'."""
    res = [None] * len(batch)
    live = list(range(len(batch)))
    for _ in range(8):
        sub = [batch[k] for k in live]
        if not sub:
            break
        src, lineno = driver(sub, form)
        cpp_f = os.path.join(tmp, tag + '.cpp')
        exe = os.path.join(tmp, tag)
        with open(cpp_f, 'w') as fh:
            fh.write(src)
        p = subprocess.run(['g++-12', '-std=c++17', '-O0', '-w', '-ftemplate-backtrace-limit=0',
                            '-I' + os.path.join(HERE, 'stubs'), '-I' + os.path.join(cutlass, 'include'),
                            cpp_f, '-o', exe], capture_output=True, text=True)
        if p.returncode == 0:
            break
        bad = set()
        for m in re.finditer(re.escape(cpp_f) + r':(\d+):', p.stderr):
            ln = int(m.group(1))
            if ln in lineno:
                bad.add(lineno[ln])
        if not bad:
            if len(sub) == 1:
                bad = {0}
            else:   # not attributable: split
                half = len(live) // 2
                a = compile_run([batch[k] for k in live[:half]], form, cutlass, tmp, tag + 'a')
                b = compile_run([batch[k] for k in live[half:]], form, cutlass, tmp, tag + 'b')
                for k, v in zip(live, a + b):
                    res[k] = v
                return res
        for j in bad:
            res[live[j]] = 'error'
        live = [k for j, k in enumerate(live) if j not in bad]
    else:
        # still failing after 8 rounds (g++ reports an erroneous template
        # instantiation only at its first use, so each round may name only
        # some of the bad cases): split rather than calling the rest errors
        if len(live) == 1:
            res[live[0]] = 'error'
            return res
        half = len(live) // 2
        a = compile_run([batch[k] for k in live[:half]], form, cutlass, tmp, tag + 'a')
        b = compile_run([batch[k] for k in live[half:]], form, cutlass, tmp, tag + 'b')
        for k, v in zip(live, a + b):
            res[k] = v
        return res
    if not live:
        return res
    start = 0
    while start < len(live):
        p = subprocess.run([exe, str(start)], capture_output=True, text=True, timeout=60)
        cur = None
        for line in p.stdout.splitlines():
            if line.startswith('@@'):
                if line == '@@end':
                    break
                cur = int(line[2:])
                continue
            if cur is not None and res[live[cur]] is None:
                res[live[cur]] = line
        if '@@end' in p.stdout.splitlines():
            break
        # crashed (a run-time assert) in case cur
        if cur is None:
            cur = start
        res[live[cur]] = 'error'
        start = cur + 1
    for k in live:
        if res[k] is None:
            res[k] = ''
    return res

def normalise(text):
    return re.sub(r'_(?=-?\d)', '', text)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cutlass')
    ap.add_argument('--out', default=os.path.join(TOP, 'tests/layout/oracle/cute.tsv'))
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--batch', type=int, default=150)
    ap.add_argument('--only')
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--merge', action='store_true', help='with --only: replace just those ops in --out')
    ap.add_argument('--reparse', action='store_true', help='only (re)write the reparse rows of --out')
    a = ap.parse_args()
    if a.reparse:
        rows, tag = [], 'unknown tag'
        for line in open(a.out):
            if line.startswith('# source: github.com/NVIDIA/cutlass '):
                tag = line[len('# source: github.com/NVIDIA/cutlass '):].split(', include/cute')[0]
            elif not line.startswith('#'):
                rows.append(tuple(line.rstrip('\n').split('\t')))
        write(a.out, tag, add_reparse(rows))
        return
    only = set(a.only.split(',')) if a.only else None
    cs = cases(only)
    if a.list:
        for c in cs:
            print('%s\t%s\t%s\t%s' % (c['op'], c['cls'], c['expr'], c['cpp']['static']))
        return
    if not a.cutlass:
        ap.error('--cutlass DIR is required')
    tag = describe(a.cutlass)
    work = []
    for form in ('static', 'dynamic'):
        for b in range(0, len(cs), a.batch):
            work.append((form, b))
    tmp = tempfile.mkdtemp(prefix='cute-oracle.')
    results = {}
    def job(w):
        form, b = w
        r = compile_run(cs[b:b + a.batch], form, a.cutlass, tmp, '%s%d' % (form, b))
        sys.stderr.write('cute-oracle: %s batch %d done\n' % (form, b))
        return w, r
    with ThreadPoolExecutor(a.jobs) as ex:
        for (form, b), r in ex.map(job, work):
            for k, v in enumerate(r):
                results[(form, b + k)] = v
    rows = []
    for k, c in enumerate(cs):
        pre = precondition(c)
        st = results[('static', k)]
        dy = results[('dynamic', k)]
        st = st if st == 'error' else normalise(st)
        dy = dy if dy == 'error' else normalise(dy)
        raw = st
        if pre:
            st = pre
        elif st != 'error':
            st = postcondition(c, st) or st
        row = (c['op'], c['cls'], 'static', c['expr'], st)
        if st == 'out-of-domain' and raw not in ('error', 'out-of-domain'):
            row += ('CuTe printed ' + raw,)
        rows.append(row)
        if not pre and dy != st and not (st == 'out-of-domain'):
            rows.append((c['op'], c['cls'], 'dynamic', c['expr'], dy))
    if a.merge:
        old = [tuple(l.rstrip('\n').split('\t')) for l in open(a.out) if not l.startswith('#')]
        ops = [r[0] for r in rows]
        keep = [r for r in old if r[0] not in ops]
        # keep the generator's op order
        order = [n for n, _, _ in case_list()]
        rows = sorted(keep + rows, key=lambda r: order.index(r[0]) if r[0] in order else len(order))
    write(a.out, tag, add_reparse(rows))
    sys.stderr.write('cute-oracle: %d expressions, %d rows -> %s\n' % (len(cs), len(rows), a.out))

def add_reparse(rows):
    """form 'cute' rows: each static case holding a rank-1 tuple again, written in
    CuTe's notation (x) instead of flyc's (x,); then rows of op 'reparse': every distinct printed CuTe tuple or layout, read back
    (flyc must print CuTe's notation and read it: `(4):(1)` is a rank-1 layout)."""
    rows = [r for r in rows if r[0] != 'reparse' and r[2] != 'cute']
    with_cute = []
    for r in rows:
        with_cute.append(r)
        if r[2] == 'static' and ',)' in r[3]:
            with_cute.append((r[0], r[1], 'cute', r[3].replace(',)', ')'), r[4]))
    rows = with_cute
    have = {r[3] for r in rows}
    seen = set()
    out = list(rows)
    for r in rows:
        op, cls, form, expr, res = r[:5]
        if form != 'static' or res in ('error', 'out-of-domain') or '(' not in res and ':' not in res:
            continue
        if res in seen or res in have:
            continue
        seen.add(res)
        out.append(('reparse', op, 'static', res, res))
    return out

def write(path, tag, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        fh.write('# CuTe oracle for flyc eval: NVIDIA CuTe\'s printed result for each expression.\n')
        fh.write('# source: github.com/NVIDIA/cutlass %s, include/cute compiled host-only with g++-12 -std=c++17\n' % tag)
        fh.write('# generated by: scripts/cute-oracle/gen.sh CUTLASS_DIR (gen.py, seeded; stub CUDA headers in scripts/cute-oracle/stubs)\n')
        fh.write('# columns: op, class, form (static = Int<N> leaves, dynamic = int leaves, written only when it prints differently),\n')
        fh.write('#          flyc expression, CuTe result (leading _ of static integers removed) | error | out-of-domain\n')
        fh.write('#          [out-of-domain only: what CuTe printed anyway]\n')
        fh.write('#          form cute = the static case written in CuTe notation, (x) for a rank-1 tuple instead of (x,)\n')
        fh.write('# op "reparse": a printed CuTe result read back (expression = result; class = the op that printed it)\n')
        for r in rows:
            fh.write('\t'.join(r) + '\n')

def describe(cutlass):
    """'tag vX (commit Y)' from CUTLASS_DIR/ORACLE-SOURCE if gen.sh wrote it."""
    f = os.path.join(cutlass, 'ORACLE-SOURCE')
    if os.path.exists(f):
        return open(f).read().strip()
    return 'unknown tag'

if __name__ == '__main__':
    main()
