#!/usr/bin/python3
# Compares `flyc eval` with NVIDIA CuTe on every static and cute-notation case
# of cute.tsv
# (see scripts/cute-oracle/gen.py for how the data is made).  Called by
# compare.sh; standard library only.
#
#   compare.py FLYC [--update-known] [--report]
#
# A case matches when flyc prints exactly CuTe's (normalised) result, or
# CuTe's result is "error"/"out-of-domain" and flyc prints "error: ...".
# Known mismatches (known-mismatch.txt, "op<TAB>expr" lines) are tolerated;
# a mismatch not in the list fails its operation, and so does a listed case
# that now matches (the list only shrinks) or that is no longer in the data.
#
# Output, one line each, fields separated by tabs: "pass NAME",
# "fail NAME DETAIL...", "info TEXT..." (the summary).
import os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'cute.tsv')
KNOWN = os.path.join(HERE, 'known-mismatch.txt')
SHOW = 5

def load():
    rows, head = [], []
    with open(DATA) as fh:
        for line in fh:
            line = line.rstrip('\n')
            if line.startswith('#'):
                head.append(line)
                continue
            op, cls, form, expr, want = line.split('\t')[:5]
            if form in ('static', 'cute'):
                rows.append((op, cls, expr, want))
    return head, rows

def load_known():
    known = set()
    if os.path.exists(KNOWN):
        with open(KNOWN) as fh:
            for line in fh:
                line = line.rstrip('\n')
                if line and not line.startswith('#'):
                    op, expr = line.split('\t', 1)
                    known.add((op, expr))
    return known

def run_flyc(flyc, exprs):
    p = subprocess.run([flyc, 'eval'], input=''.join(e + '\n' for e in exprs),
                       capture_output=True, text=True, timeout=120)
    out = p.stdout.split('\n')
    if out and out[-1] == '':
        out.pop()
    return out, p

def matches(want, got):
    if want in ('error', 'out-of-domain'):
        return got.startswith('error')
    return got == want

def main():
    flyc = sys.argv[1]
    update = '--update-known' in sys.argv
    report = '--report' in sys.argv
    head, rows = load()
    got, p = run_flyc(flyc, [r[2] for r in rows])
    if len(got) != len(rows):
        print('fail\toracle/flyc-eval\tflyc eval printed %d lines for %d expressions (exit %d)\t%s'
              % (len(got), len(rows), p.returncode, p.stderr[-400:].replace('\n', ' ')))
        return
    known = load_known()
    ops = []
    per = {}
    mism = []
    for (op, cls, expr, want), g in zip(rows, got):
        if op not in per:
            ops.append(op)
            per[op] = {'n': 0, 'ok': 0, 'new': [], 'fixed': [], 'known': 0}
        s = per[op]
        s['n'] += 1
        ok = matches(want, g)
        k = (op, expr) in known
        if ok:
            s['ok'] += 1
            if k:
                s['fixed'].append(expr)
        else:
            mism.append((op, cls, expr, want, g))
            if k:
                s['known'] += 1
            else:
                s['new'].append((expr, want, g))
        if report and not ok:
            print('info\tMISMATCH\t%s\t%s\t%s\twant %s\tgot %s' % (op, cls, expr, want, g))
    if update:
        with open(KNOWN, 'w') as fh:
            fh.write('# Cases of cute.tsv where flyc eval differs from CuTe today (op, expression).\n')
            fh.write('# Written by tests/layout/oracle/compare.sh --update-known; the list may only shrink:\n')
            fh.write('# compare fails on a mismatch not listed here and on a listed case that matches.\n')
            for op, cls, expr, want, g in mism:
                fh.write('%s\t%s\n' % (op, expr))
        known = {(m[0], m[2]) for m in mism}
        for op in ops:
            per[op]['known'] = len(per[op]['new']) + per[op]['known']
            per[op]['new'], per[op]['fixed'] = [], []
    present = {(r[0], r[2]) for r in rows}
    stale = sorted(known - present)
    total = sum(per[o]['n'] for o in ops)
    ok = sum(per[o]['ok'] for o in ops)
    nk = sum(per[o]['known'] for o in ops)
    for l in head:
        if l.startswith('# source:'):
            print('info\toracle ' + l[2:])
    print('info\toracle: flyc eval matches CuTe on %d of %d cases (%.1f%%)' % (ok, total, 100.0 * ok / max(total, 1)))
    if nk:
        print('info\toracle: *** %d KNOWN MISMATCHES tolerated (tests/layout/oracle/known-mismatch.txt) ***' % nk)
    for op in ops:
        s = per[op]
        name = 'oracle/%s (%d/%d match, %d known)' % (op, s['ok'], s['n'], s['known'])
        detail = []
        for expr, want, g in s['new'][:SHOW]:
            detail.append('%s   CuTe: %s   flyc: %s' % (expr, want, g))
        if len(s['new']) > SHOW:
            detail.append('... %d new mismatches in all' % len(s['new']))
        for expr in s['fixed'][:SHOW]:
            detail.append('now matches, remove from known-mismatch.txt (compare.sh --update-known): ' + expr)
        if len(s['fixed']) > SHOW:
            detail.append('... %d listed cases now match' % len(s['fixed']))
        if detail:
            print('fail\t' + name + '\t' + '\t'.join(detail))
        else:
            print('pass\t' + name)
    if stale:
        print('fail\toracle/known-mismatch-stale\t%d listed cases are not in cute.tsv, e.g. %s' % (len(stale), stale[0][1]))

if __name__ == '__main__':
    main()
