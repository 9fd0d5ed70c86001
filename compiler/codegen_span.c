/*
 * codegen_span.c — upper bounds of a run-time layout's byte span, from the
 * parameter types and the kernel's `requires` facts (codegen_span.h has the
 * model). Polynomials are sums of terms c * x_i * x_j * ... over parameter
 * indices, collected (one term per monomial, no zero terms); bounds are
 * computed in 128-bit integers clamped to +-2^100, so they never wrap.
 *
 * Example: A: bf16[(M, K):(K, 1)] with `requires M * K <= 1 << 30`:
 * span = (M-1)*K + (K-1)*1 + 1 = M*K; the fact bounds M*K by 2^30, so the
 * byte span is at most 2^31 and a buffer descriptor is safe. Without the
 * fact, M*K <= (2^31-1)^2 and the buffer is refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_span.h"

__extension__ typedef __int128 Big;

#define LIM ((Big)1 << 100)

enum { MAXDEG = 8, MAXTERMS = 48, MAXFACTS = 32, MAXSTACK = 64 };

typedef struct { int deg; uint32_t v[MAXDEG]; } Mono;   /* sorted parameter indices */
typedef struct { Mono m; int64_t c; } Term;
typedef struct { int n, bad; Term t[MAXTERMS]; } Poly;  /* collected, no zero terms */

typedef struct { Mono m; Big lo, hi; } Fact;            /* lo <= m <= hi */

typedef struct {
	const IrFunc *f;
	Big *lo, *hi;          /* per parameter */
	Fact fact[MAXFACTS];   /* monomials of degree >= 2 */
	int nf;
} Dom;

/* ---- 128-bit bounds, clamped ---- */

static Big clampb(Big x) { return x > LIM ? LIM : x < -LIM ? -LIM : x; }
static Big babs(Big x) { return x < 0 ? -x : x; }
static Big bmin(Big a, Big b) { return a < b ? a : b; }
static Big bmax(Big a, Big b) { return a > b ? a : b; }

static Big
bmul(Big a, Big b)
{
	if (!a || !b)
		return 0;
	if (babs(a) > LIM / babs(b))
		return (a < 0) != (b < 0) ? -LIM : LIM;
	return clampb(a * b);
}

/* floor(a / b), b > 0 */
static Big
bfloordiv(Big a, Big b)
{
	Big q = a / b;
	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static void
bstr(Big x, char *buf, size_t n)
{
	if (x >= LIM)
		snprintf(buf, n, "2^100 or more");
	else if (x <= -LIM)
		snprintf(buf, n, "-2^100 or less");
	else if (babs(x) >> 63) {
		int e = 0;
		for (Big a = babs(x); a > 1; a >>= 1)
			e++;
		snprintf(buf, n, "%sabout 2^%d", x < 0 ? "-" : "", e);
	} else
		snprintf(buf, n, "%lld", (long long)x);
}

/* ---- monomials and polynomials ---- */

static int
mono_eq(const Mono *a, const Mono *b)
{
	return a->deg == b->deg && !memcmp(a->v, b->v, sizeof a->v[0] * (size_t)a->deg);
}

static int
mono_mul(const Mono *a, const Mono *b, Mono *r)
{
	int i = 0, j = 0, k = 0;
	if (a->deg + b->deg > MAXDEG)
		return 0;
	while (i < a->deg || j < b->deg)
		r->v[k++] = (j >= b->deg || (i < a->deg && a->v[i] <= b->v[j])) ? a->v[i++] : b->v[j++];
	r->deg = k;
	return 1;
}

/* r = a / d when d divides a (as multisets); 1 if it does */
static int
mono_div(const Mono *a, const Mono *d, Mono *r)
{
	int i = 0, j = 0;
	r->deg = 0;
	while (i < a->deg) {
		if (j < d->deg && a->v[i] == d->v[j]) {
			i++;
			j++;
		} else if (j < d->deg && a->v[i] > d->v[j]) {
			return 0;
		} else {
			r->v[r->deg++] = a->v[i++];
		}
	}
	return j == d->deg;
}

static void
add_term(Poly *p, const Mono *m, int64_t c)
{
	if (p->bad || !c)
		return;
	for (int i = 0; i < p->n; i++)
		if (mono_eq(&p->t[i].m, m)) {
			if (__builtin_add_overflow(p->t[i].c, c, &p->t[i].c))
				p->bad = 1;
			else if (!p->t[i].c)
				p->t[i] = p->t[--p->n];
			return;
		}
	if (p->n == MAXTERMS) {
		p->bad = 1;
		return;
	}
	p->t[p->n].m = *m;
	p->t[p->n++].c = c;
}

static void
p_const(Poly *p, int64_t c)
{
	Mono one = { 0 };
	p->n = p->bad = 0;
	add_term(p, &one, c);
}

static void
p_var(Poly *p, uint32_t v)
{
	Mono m = { 1, { v } };
	p->n = p->bad = 0;
	add_term(p, &m, 1);
}

/* a += sign * b */
static void
p_add(Poly *a, const Poly *b, int sign)
{
	a->bad |= b->bad;
	for (int i = 0; i < b->n && !a->bad; i++) {
		if (sign < 0 && b->t[i].c == INT64_MIN) {
			a->bad = 1;
			return;
		}
		add_term(a, &b->t[i].m, sign < 0 ? -b->t[i].c : b->t[i].c);
	}
}

/* r = a * b (r distinct from a and b) */
static void
p_mul(Poly *r, const Poly *a, const Poly *b)
{
	r->n = 0;
	r->bad = a->bad | b->bad;
	for (int i = 0; i < a->n && !r->bad; i++)
		for (int j = 0; j < b->n && !r->bad; j++) {
			Mono m;
			int64_t c;
			if (!mono_mul(&a->t[i].m, &b->t[j].m, &m) || __builtin_mul_overflow(a->t[i].c, b->t[j].c, &c))
				r->bad = 1;
			else
				add_term(r, &m, c);
		}
}

static void
mono_print(const IrFunc *f, const Mono *m, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < m->deg && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? " * " : "", f->param[m->v[i]].name);
}

/* "M * K - K + 1" */
static void
p_print(const IrFunc *f, const Poly *p, char *buf, size_t n)
{
	size_t k = 0;
	buf[0] = 0;
	if (!p->n)
		snprintf(buf, n, "0");
	for (int i = 0; i < p->n && k < n; i++) {
		char mb[160];
		int64_t c = p->t[i].c;
		unsigned long long a = c < 0 ? 0ull - (unsigned long long)c : (unsigned long long)c;
		mono_print(f, &p->t[i].m, mb, sizeof mb);
		if (i)
			k += (size_t)snprintf(buf + k, n - k, c < 0 ? " - " : " + ");
		else if (c < 0)
			k += (size_t)snprintf(buf + k, n - k, "-");
		if (k >= n)
			break;
		if (!p->t[i].m.deg)
			k += (size_t)snprintf(buf + k, n - k, "%llu", a);
		else if (a != 1)
			k += (size_t)snprintf(buf + k, n - k, "%llu * %s", a, mb);
		else
			k += (size_t)snprintf(buf + k, n - k, "%s", mb);
	}
}

/* ---- ranges ---- */

static int
nonneg(const Dom *D, const Mono *m)
{
	for (int i = 0; i < m->deg; i++)
		if (D->lo[m->v[i]] < 0)
			return 0;
	return 1;
}

/* upper bound of m >= 0 (all its parameters non-negative): the product of
 * per-parameter bounds, a fact on m itself, or a fact on a factor f times the
 * bound of m / f, whichever is smallest */
static Big
ub_nonneg(const Dom *D, const Mono *m, int depth)
{
	Big best = 1;
	for (int i = 0; i < m->deg; i++)
		best = bmul(best, D->hi[m->v[i]]);
	for (int i = 0; i < D->nf; i++) {
		Mono rest;
		Big fh = bmax(D->fact[i].hi, 0);
		if (!mono_div(m, &D->fact[i].m, &rest)) {
			/* m * rest <= hi with rest >= its lower bound >= 1 */
			Big rl = 1;
			if (!mono_div(&D->fact[i].m, m, &rest))
				continue;
			for (int j = 0; j < rest.deg; j++)
				rl = D->lo[rest.v[j]] >= 1 ? bmul(rl, D->lo[rest.v[j]]) : 0;
			if (rl >= 1)
				best = bmin(best, fh / rl);
			continue;
		}
		if (!rest.deg)
			best = bmin(best, fh);
		else if (depth < MAXDEG)
			best = bmin(best, bmul(fh, ub_nonneg(D, &rest, depth + 1)));
	}
	return best;
}

static void
mono_range(const Dom *D, const Mono *m, Big *lo, Big *hi)
{
	Big l = 1, h = 1;
	for (int i = 0; i < m->deg; i++) {
		Big a = D->lo[m->v[i]], b = D->hi[m->v[i]];
		Big c[4] = { bmul(l, a), bmul(l, b), bmul(h, a), bmul(h, b) };
		l = bmin(bmin(c[0], c[1]), bmin(c[2], c[3]));
		h = bmax(bmax(c[0], c[1]), bmax(c[2], c[3]));
	}
	for (int i = 0; i < D->nf; i++)
		if (mono_eq(&D->fact[i].m, m)) {
			l = bmax(l, D->fact[i].lo);
			h = bmin(h, D->fact[i].hi);
		}
	if (m->deg && nonneg(D, m))
		h = bmin(h, ub_nonneg(D, m, 0));
	*lo = l;
	*hi = h;
}

static void
p_range(const Dom *D, const Poly *p, Big *lo, Big *hi)
{
	Big l = 0, h = 0;
	for (int i = 0; i < p->n; i++) {
		Big ml, mh, c = p->t[i].c;
		mono_range(D, &p->t[i].m, &ml, &mh);
		l = clampb(l + bmul(c, c > 0 ? ml : mh));
		h = clampb(h + bmul(c, c > 0 ? mh : ml));
	}
	*lo = l;
	*hi = h;
}

/* ---- facts from the requires RPN ---- */

static int
int_param(const IrFunc *f, uint32_t i)
{
	return f->param[i].kind == IR_PARAM_VAL &&
	       (f->param[i].ty == IR_I32 || f->param[i].ty == IR_I64 || f->param[i].ty == IR_I16 ||
	        f->param[i].ty == IR_I8);
}

static int
is_unsigned(uint64_t mask, uint32_t i)
{
	return i >= 64 || ((mask >> i) & 1);
}

/* the fact g <= 0, when g is a * m + b with one non-constant monomial m */
static void
apply_fact(Dom *D, const Poly *g, uint64_t umask)
{
	const Term *mt = NULL;
	Big b = 0, lo = -LIM, hi = LIM;

	if (g->bad)
		return;
	for (int i = 0; i < g->n; i++) {
		if (!g->t[i].m.deg)
			b = g->t[i].c;
		else if (mt)
			return;
		else
			mt = &g->t[i];
	}
	if (!mt)
		return;
	/* a*m <= -b */
	if (mt->c > 0)
		hi = bfloordiv(-b, mt->c);
	else
		lo = -bfloordiv(-b, -(Big)mt->c);  /* m >= ceil(b / -a) */
	for (int i = 0; i < mt->m.deg; i++)
		if (is_unsigned(umask, mt->m.v[i])) {
			/* the runtime checks the zero-extended value, the kernel reads the
			 * bits as signed: only x <= c < 2^(bits-1) says the same to both */
			uint32_t v = mt->m.v[0];
			Big lim = (Big)1 << (ir_scalar_bits(D->f->param[v].ty) - 1);
			if (mt->m.deg == 1 && mt->c > 0 && hi >= 0 && hi < lim) {
				D->lo[v] = bmax(D->lo[v], 0);
				D->hi[v] = bmin(D->hi[v], hi);
			}
			return;
		}
	if (mt->m.deg == 1) {
		uint32_t v = mt->m.v[0];
		D->lo[v] = bmax(D->lo[v], lo);
		D->hi[v] = bmin(D->hi[v], hi);
		return;
	}
	for (int i = 0; i < D->nf; i++)
		if (mono_eq(&D->fact[i].m, &mt->m)) {
			D->fact[i].lo = bmax(D->fact[i].lo, lo);
			D->fact[i].hi = bmin(D->fact[i].hi, hi);
			return;
		}
	if (D->nf < MAXFACTS) {
		D->fact[D->nf].m = mt->m;
		D->fact[D->nf].lo = lo;
		D->fact[D->nf++].hi = hi;
	}
}

typedef enum { IT_OPAQUE, IT_POLY, IT_FACTS } ItemKind;
typedef struct {
	ItemKind kind;
	uint32_t facts;   /* IT_FACTS: bit i = facts[i] (g <= 0) holds when the item is true */
} Item;

/* One requires predicate in RPN (docs/metadata.md). Comparisons of
 * polynomials and their conjunctions give facts; anything else (/ % min max
 * ceil_div, ||, !, !=, addresses) is opaque and gives none. */
static void
facts_from_rpn(Dom *D, const char *rpn, uint64_t umask, Poly *pool, Poly *facts)
{
	Item st[MAXSTACK];
	int sp = 0, nfacts = 0;
	const char *s = rpn;

	while (*s) {
		char tok[64];
		size_t n = strcspn(s, " ");
		if (!n) {
			s++;
			continue;
		}
		if (n >= sizeof tok || sp >= MAXSTACK)
			return;
		memcpy(tok, s, n);
		tok[n] = 0;
		s += n;
		if ((tok[0] >= '0' && tok[0] <= '9') || (tok[0] == '-' && tok[1])) {
			char *end;
			long long v = strtoll(tok, &end, 10);
			if (*end)
				return;
			p_const(&pool[sp], v);
			st[sp++].kind = IT_POLY;
			continue;
		}
		if (tok[0] == '$' || tok[0] == '@') {
			uint32_t i;
			for (i = 0; i < D->f->nparam; i++)
				if (!strcmp(D->f->param[i].name, tok + 1))
					break;
			st[sp].kind = IT_OPAQUE;
			if (tok[0] == '$' && i < D->f->nparam && int_param(D->f, i)) {
				p_var(&pool[sp], i);
				st[sp].kind = IT_POLY;
			}
			sp++;
			continue;
		}
		if (!strcmp(tok, "!")) {
			if (sp < 1)
				return;
			st[sp - 1].kind = IT_OPAQUE;
			continue;
		}
		if (sp < 2)
			return;
		Item *a = &st[sp - 2], *b = &st[sp - 1];
		Poly *pa = &pool[sp - 2], *pb = &pool[sp - 1];
		sp--;
		if (a->kind == IT_POLY && b->kind == IT_POLY &&
		    (!strcmp(tok, "+") || !strcmp(tok, "-") || !strcmp(tok, "*"))) {
			if (tok[0] == '*') {
				Poly *r = &pool[MAXSTACK];
				p_mul(r, pa, pb);
				*pa = *r;
			} else {
				p_add(pa, pb, tok[0] == '-' ? -1 : 1);
			}
			continue;
		}
		if (a->kind == IT_POLY && b->kind == IT_POLY && !pa->bad && !pb->bad &&
		    (!strcmp(tok, "<=") || !strcmp(tok, "<") || !strcmp(tok, ">=") || !strcmp(tok, ">") ||
		     !strcmp(tok, "=="))) {
			/* a op b as g <= 0 (and, for ==, -g <= 0 too) */
			int ge = tok[0] == '>', strict = tok[1] == 0 && tok[0] != '=';
			Poly g = *(ge ? pb : pa);
			Mono one = { 0 };
			p_add(&g, ge ? pa : pb, -1);
			if (strict)
				add_term(&g, &one, 1);
			a->kind = IT_FACTS;
			a->facts = 0;
			if (nfacts < 31) {
				facts[nfacts] = g;
				a->facts |= 1u << nfacts++;
			}
			if (tok[0] == '=' && nfacts < 31) {
				Poly z;
				p_const(&z, 0);
				p_add(&z, &g, -1);
				facts[nfacts] = z;
				a->facts |= 1u << nfacts++;
			}
			continue;
		}
		if (!strcmp(tok, "&&") && (a->kind == IT_FACTS || b->kind == IT_FACTS)) {
			uint32_t fa = a->kind == IT_FACTS ? a->facts : 0, fb = b->kind == IT_FACTS ? b->facts : 0;
			a->kind = IT_FACTS;
			a->facts = fa | fb;
			continue;
		}
		a->kind = IT_OPAQUE;
	}
	if (sp == 1 && st[0].kind == IT_FACTS)
		for (int i = 0; i < nfacts; i++)
			if ((st[0].facts >> i) & 1)
				apply_fact(D, &facts[i], umask);
}

/* ---- the span ---- */

/* the polynomial of integer value r: constants and parameters, through
 * widening conversions, + - and *, each of which must provably not overflow
 * its type (the kernel computes it in that type); 0 with WHY otherwise */
static int
value_poly(const Dom *D, IrRef r, Poly *p, char *why, size_t wn)
{
	const IrInst *I = &D->f->inst[r];
	unsigned bits = ir_scalar_bits((IrScalar)I->ty.kind);

	if (I->ty.lanes != 1 || !(I->ty.kind == IR_I32 || I->ty.kind == IR_I64)) {
		snprintf(why, wn, "its layout has a run-time leaf (%%%u) that is not a 32- or 64-bit integer", r);
		return 0;
	}
	switch (I->op) {
	case IR_OP_CONST:
		p_const(p, I->imm[0]);
		return 1;
	case IR_OP_ARG:
		if (!int_param(D->f, (uint32_t)I->imm[0]))
			break;
		p_var(p, (uint32_t)I->imm[0]);
		return 1;
	case IR_OP_CVT: {
		const IrInst *X = &D->f->inst[I->ops[0]];
		if (X->ty.lanes != 1 || !(X->ty.kind == IR_I32 || X->ty.kind == IR_I64) ||
		    ir_scalar_bits((IrScalar)X->ty.kind) > bits)
			break;
		return value_poly(D, I->ops[0], p, why, wn);
	}
	case IR_OP_ADD: case IR_OP_SUB: case IR_OP_MUL: {
		Poly *b = malloc(sizeof *b), *t = malloc(sizeof *t);
		Big lo, hi, lim = (Big)1 << (bits - 1);
		int ok = b && t && value_poly(D, I->ops[0], p, why, wn) && value_poly(D, I->ops[1], b, why, wn);
		if (!b || !t)
			IR_ICE("out of memory");
		if (ok && I->op == IR_OP_MUL) {
			p_mul(t, p, b);
			*p = *t;
		} else if (ok) {
			p_add(p, b, I->op == IR_OP_SUB ? -1 : 1);
		}
		free(b);
		free(t);
		if (!ok)
			return 0;
		if (p->bad) {
			snprintf(why, wn, "its layout leaf %%%u is too large a polynomial for the analysis", r);
			return 0;
		}
		p_range(D, p, &lo, &hi);
		if (lo < -lim || hi >= lim) {
			char pb[200];
			p_print(D->f, p, pb, sizeof pb);
			snprintf(why, wn, "its layout leaf %s, computed in i%u, may overflow (state a `requires` "
			         "bound on it)", pb, bits);
			return 0;
		}
		return 1;
	}
	default:
		break;
	}
	snprintf(why, wn, "its layout has a run-time leaf (%%%u) that is not computed from integer parameters "
	         "by + - *", r);
	return 0;
}

static int
leaf_poly(const Dom *D, const IrTuple *t, Poly *p, char *why, size_t wn)
{
	if (!t->dyn) {
		p_const(p, t->value);
		return 1;
	}
	return value_poly(D, t->dyn, p, why, wn);
}

/* the extents as variables are at least 1 (else the tensor is empty) */
static void
extents_positive(Dom *D, const IrTuple *s)
{
	Poly p;
	char why[8];
	if (s->n) {
		for (int i = 0; i < s->n; i++)
			extents_positive(D, s->kid[i]);
		return;
	}
	if (s->dyn && leaf_poly(D, s, &p, why, sizeof why) && p.n == 1 && p.t[0].m.deg == 1 && p.t[0].c == 1)
		D->lo[p.t[0].m.v[0]] = bmax(D->lo[p.t[0].m.v[0]], 1);
}

/* acc += sum over leaves of (extent - 1) * stride; 0 with WHY on failure */
static int
span_poly(Dom *D, const IrTuple *s, const IrTuple *d, Poly *acc, int *empty, char *why, size_t wn)
{
	Poly ps, pd, t;
	Big lo, hi;

	if (s->n != d->n) {
		snprintf(why, wn, "its shape and stride are not congruent");
		return 0;
	}
	if (s->n) {
		for (int i = 0; i < s->n; i++)
			if (!span_poly(D, s->kid[i], d->kid[i], acc, empty, why, wn))
				return 0;
		return 1;
	}
	if (!s->dyn && s->value <= 0) {
		*empty = 1;
		return 1;
	}
	if (!s->dyn && s->value == 1)
		return 1;   /* one coordinate: the stride is never used */
	if (!leaf_poly(D, s, &ps, why, wn) || !leaf_poly(D, d, &pd, why, wn))
		return 0;
	p_range(D, &pd, &lo, &hi);
	if (lo < 0) {
		char pb[200];
		p_print(D->f, &pd, pb, sizeof pb);
		if (!d->dyn)
			snprintf(why, wn, "its stride %s is negative (a buffer offset cannot go below the base)", pb);
		else
			snprintf(why, wn, "its stride %s may be negative (a buffer offset cannot go below the "
			         "base; state `requires %s >= 0` if it cannot)", pb, pb);
		return 0;
	}
	Poly one;
	p_const(&one, 1);
	p_add(&ps, &one, -1);
	p_mul(&t, &ps, &pd);
	p_add(acc, &t, 1);
	if (acc->bad) {
		snprintf(why, wn, "its span polynomial is too large for the analysis (more than %d terms, "
		         "degree %d or 64-bit coefficients)", MAXTERMS, MAXDEG);
		return 0;
	}
	return 1;
}

uint64_t
cg_span_bound(const IrFunc *f, const IrTensor *T, uint64_t unsigned_params, char *why, size_t wn)
{
	Dom *D = calloc(1, sizeof *D);
	Poly *pool = calloc(MAXSTACK + 1 + 32, sizeof *pool), *acc = calloc(1, sizeof *acc);
	/* bytes for n elements: n * bits / 8, rounded up (fp4/fp6 pack below a byte) */
	uint64_t bits = ir_scalar_bits(T->elem), esz = (bits + 7) / 8, res = 0;
	Big lo, hi;
	int empty = 0;

	if (!D || !pool || !acc)
		IR_ICE("out of memory");
	D->f = f;
	D->lo = calloc(f->nparam + 1, sizeof *D->lo);
	D->hi = calloc(f->nparam + 1, sizeof *D->hi);
	if (!D->lo || !D->hi)
		IR_ICE("out of memory");
	for (uint32_t i = 0; i < f->nparam; i++) {
		unsigned pb = int_param(f, i) ? ir_scalar_bits(f->param[i].ty) : 0;
		D->lo[i] = pb ? -((Big)1 << (pb - 1)) : 0;
		D->hi[i] = pb ? ((Big)1 << (pb - 1)) - 1 : 0;
	}
	for (uint32_t r = 0; r < f->nreq; r++)
		facts_from_rpn(D, f->req_rpn[r], unsigned_params, pool, pool + MAXSTACK + 1);
	extents_positive(D, T->layout.shape);
	if (T->layout.sw.b) {
		snprintf(why, wn, "it is swizzled");
		goto out;
	}
	p_const(acc, 1);
	if (!span_poly(D, T->layout.shape, T->layout.stride, acc, &empty, why, wn))
		goto out;
	if (empty) {
		res = esz;
		goto out;
	}
	p_range(D, acc, &lo, &hi);
	if (hi <= bfloordiv((Big)0xFFFFFFFF * 8, (Big)bits)) {
		res = ((hi < 1 ? 1 : (uint64_t)hi) * bits + 7) / 8;
		goto out;
	}
	{
		char pb[300], hb[48], sug[200] = "";
		p_print(f, acc, pb, sizeof pb);
		bstr(bits % 8 ? bfloordiv(bmul(hi, (Big)bits) + 7, 8) : bmul(hi, (Big)esz), hb, sizeof hb);
		/* suggest a bound on the highest-degree positive monomial */
		const Term *top = NULL;
		for (int i = 0; i < acc->n; i++)
			if (acc->t[i].c > 0 && acc->t[i].m.deg && (!top || acc->t[i].m.deg > top->m.deg))
				top = &acc->t[i];
		if (top) {
			char mb[160];
			mono_print(f, &top->m, mb, sizeof mb);
			snprintf(sug, sizeof sug, ", e.g. `requires %s <= %llu`", mb,
			         (unsigned long long)(0xFFFFFFFFull * 8 / bits / (uint64_t)top->c));
		}
		snprintf(why, wn, "its byte span, %llu%s * %s%s%s, may reach %s bytes; bound it below 4 GiB "
		         "with `requires`%s", (unsigned long long)(bits % 8 ? bits : esz), bits % 8 ? " / 8" : "",
		         acc->n > 1 ? "(" : "", pb, acc->n > 1 ? ")" : "", hb, sug);
	}
out:
	free(D->lo);
	free(D->hi);
	free(D);
	free(pool);
	free(acc);
	return res;
}
