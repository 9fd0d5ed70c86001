/*
 * lay_int.h — helpers shared by the files of compiler/layout/ (not part of
 * the library's interface; use lay.h).
 */
#ifndef FLYC_LAY_INT_H
#define FLYC_LAY_INT_H

#include "layout/lay.h"

/* The helpers below are shared by the files of compiler/layout/ only; at link
 * level they carry the module prefix (layi_) like every exported name. */
#define vec_push        layi_vec_push
#define vec_tuple       layi_vec_tuple
#define iop             layi_iop
#define iabs            layi_iabs
#define isignum         layi_isignum
#define rank_of         layi_rank_of
#define is_tuple        layi_is_tuple
#define tget            layi_tget
#define lget            layi_lget
#define repeat_like     layi_repeat_like
#define product         layi_product
#define shape_of        layi_shape_of
#define tappend         layi_tappend
#define tprepend        layi_tprepend
#define tappend_n       layi_tappend_n
#define tflatten        layi_tflatten
#define tflatten_tuple  layi_tflatten_tuple
#define unwrap          layi_unwrap
#define tzip            layi_tzip
#define tzip2_by        layi_tzip2_by
#define tslice          layi_tslice
#define tdice           layi_tdice
#define compact_col     layi_compact_col
#define compact_row     layi_compact_row
#define crd2idx_l       layi_crd2idx_l
#define on_layout       layi_on_layout
#define tmap            layi_tmap
#define product_like    layi_product_like

/* A growable list of values in the arena; `bad` once an element was NULL. */
typedef struct vec {
	const lay_val **e;
	int n, cap, bad;
} vec;

void           vec_push(lay_ctx *c, vec *v, const lay_val *x);
const lay_val *vec_tuple(lay_ctx *c, const vec *v);

const lay_val *iop(lay_ctx *c, lay_expr_kind k, const lay_val *a, const lay_val *b);
const lay_val *iabs(lay_ctx *c, const lay_val *a);
const lay_val *isignum(lay_ctx *c, const lay_val *a);
int            rank_of(const lay_val *x);
int            is_tuple(const lay_val *x);
const lay_val *tget(lay_ctx *c, const lay_val *x, int i);
const lay_val *lget(lay_ctx *c, const lay_val *l, int i);
const lay_val *repeat_like(lay_ctx *c, const lay_val *x, int64_t k);
const lay_val *product(lay_ctx *c, const lay_val *x);
const lay_val *shape_of(lay_ctx *c, const lay_val *x);
const lay_val *tappend(lay_ctx *c, const lay_val *a, const lay_val *x);
const lay_val *tprepend(lay_ctx *c, const lay_val *a, const lay_val *x);
const lay_val *tappend_n(lay_ctx *c, const lay_val *a, int n, const lay_val *x);
const lay_val *tflatten(lay_ctx *c, const lay_val *x);
const lay_val *tflatten_tuple(lay_ctx *c, const lay_val *x);
const lay_val *unwrap(const lay_val *x);
const lay_val *tzip(lay_ctx *c, const lay_val *t);
const lay_val *tzip2_by(lay_ctx *c, const lay_val *t, const lay_val *guide);
const lay_val *tslice(lay_ctx *c, const lay_val *coord, const lay_val *x);
const lay_val *tdice(lay_ctx *c, const lay_val *coord, const lay_val *x);
const lay_val *compact_col(lay_ctx *c, const lay_val *shape, const lay_val **cur);
const lay_val *compact_row(lay_ctx *c, const lay_val *shape, const lay_val **cur);
const lay_val *product_like(lay_ctx *c, const lay_val *shape, const lay_val *guide);
const lay_val *crd2idx_l(lay_ctx *c, const lay_val *coord, const lay_val *l);

const lay_val *layi_rewrap(lay_ctx *c, const lay_val *composed, const lay_val *b);
const lay_val *layi_composed_keep(lay_ctx *c, const lay_val *a, const lay_expr *off, const lay_val *b);

typedef const lay_val *(*tfn)(lay_ctx *, const lay_val *, void *);
const lay_val *on_layout(lay_ctx *c, const lay_val *x, tfn f, void *arg);
const lay_val *tmap(lay_ctx *c, const lay_val *x, tfn f, void *arg);

#endif
