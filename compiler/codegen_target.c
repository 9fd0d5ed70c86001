/*
 * codegen_target.c — the target check, before code generation: every atom a
 * kernel for an arch uses is one that arch has (its module, e.g. gfx950 or
 * gfx1201, matches), and every arch has at least one kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_int.h"
#include "codegen_span.h"
#include "ir_banks.h"
#include "ir.h"
#include "target/target.h"

typedef struct {
	Cg *c;
	SemaProgram *prog;
	const TgtDesc *t;
	int reported;
} AtomCheck;

static void check_atoms(AtomCheck *a, Node *n);

/* the module declaring atom decl, or NULL */
static SemaModule *
atom_module(SemaProgram *p, Node *decl)
{
	for (int i = 0; i < p->nmodules; i++)
		for (int k = 0; k < p->modules[i]->nsyms; k++)
			if (p->modules[i]->syms[k]->node == decl)
				return p->modules[i];
	return NULL;
}

static void
check_list(AtomCheck *a, NodeList l)
{
	for (int i = 0; i < l.n; i++)
		check_atoms(a, l.v[i]);
}

/* Using an atom declared for another target (stdlib/gfxNNN.fly) is a located error. */
static void
check_atoms(AtomCheck *a, Node *n)
{
	if (!n || a->reported)
		return;
	if (n->type && n->type->atom && (n->type->kind == TY_ATOM || n->kind == E_MEMBER)) {
		SemaModule *m = atom_module(a->prog, n->type->atom);
		const TgtDesc *owner = m ? tgt_find(m->name) : NULL;
		if (owner && owner != a->t) {
			diag_error(a->c->d, n->span, "atom '%s.%s' belongs to %s; --offload-arch=%s does not have it "
			           "(use the %s atoms, e.g. import %s)", m->name, n->type->atom->u.atom.id,
			           owner->name, a->t->name, a->t->name, a->t->name);
			a->reported = 1;
			a->c->failed = 1;
			return;
		}
	}
	switch (n->kind) {
	case S_BLOCK: check_list(a, n->u.block); break;
	case S_LET: case S_VAR: check_atoms(a, n->u.let.init); break;
	case S_ASSIGN: check_atoms(a, n->u.assign.lhs); check_atoms(a, n->u.assign.rhs); break;
	case S_EXPR: case S_ASSUME: check_atoms(a, n->u.expr); break;
	case S_IF: check_atoms(a, n->u.if_.cond); check_atoms(a, n->u.if_.then); check_atoms(a, n->u.if_.els); break;
	case S_FOR:
		check_atoms(a, n->u.for_.lo); check_atoms(a, n->u.for_.hi);
		check_atoms(a, n->u.for_.step); check_atoms(a, n->u.for_.body);
		break;
	case S_WHILE: check_atoms(a, n->u.while_.cond); check_atoms(a, n->u.while_.body); break;
	case S_PIPELINE:
		check_atoms(a, n->u.pipe.lo); check_atoms(a, n->u.pipe.hi);
		check_atoms(a, n->u.pipe.load); check_atoms(a, n->u.pipe.compute);
		break;
	case S_WAVES:
		for (int i = 0; i < n->u.waves.arms.n; i++)
			check_atoms(a, n->u.waves.arms.v[i]->body);
		break;
	case E_TUPLE: case E_TILER: check_list(a, n->u.list); break;
	case E_UNARY: check_atoms(a, n->u.unary.x); break;
	case E_BINARY: case E_LAYOUT: case E_COMPOSE:
		check_atoms(a, n->u.binary.l); check_atoms(a, n->u.binary.r);
		break;
	case E_CALL: case E_INDEX:
		check_atoms(a, n->u.call.callee);
		check_list(a, n->u.call.args);
		for (int i = 0; i < n->u.call.named.n; i++)
			check_atoms(a, n->u.call.named.v[i]->value);
		break;
	case E_MEMBER: check_atoms(a, n->u.member.base); break;
	case E_CONVERT: check_atoms(a, n->u.convert.x); break;
	default: break;
	}
}

/* Whether kernel instance k is compiled for arch t (its targets(...) clause). */
static int
kernel_for(const CgOptions *o, const SemaKernel *k, const TgtDesc *t, int a)
{
	if (k->targets && !(k->targets & sema_target_bit(t->name)))
		return 0;
	if (o->banks_any_arch && !k->targets && a > 0)
		return 0;   /* flyc show --banks: kernels without targets(...) only for the first arch */
	return 1;
}

int
cg_check_targets(SemaProgram *prog, const CgOptions *o, Diag *d)
{
	Cg c = { 0 };

	c.d = d;
	if (prog->nkernels == 0) {
		diag_error(d, SPAN_NONE, "the program has no kernel to compile");
		return 1;
	}
	for (int a = 0; a < o->narchs && !c.failed; a++) {
		const TgtDesc *t = o->archs[a];
		int nfor = 0;
		for (int i = 0; i < prog->nkernels && !c.failed; i++) {
			AtomCheck ac = { &c, prog, t, 0 };
			if (!kernel_for(o, prog->kernels[i], t, a))
				continue;
			nfor++;
			check_atoms(&ac, prog->kernels[i]->decl->u.kernel.body);
		}
		if (!nfor && !c.failed && !o->banks_any_arch) {
			diag_error(d, SPAN_NONE, "no kernel of this file is for --offload-arch=%s: the targets(...) "
			           "clause of every kernel excludes it", t->name);
			c.failed = 1;
		}
	}
	return c.failed || diag_errors(d) ? 1 : 0;
}
