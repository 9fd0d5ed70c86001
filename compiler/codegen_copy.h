/* Copy atoms in code generation (internal to compiler/codegen*.c).
 *
 * A copy atom (stdlib/gfxNNN.fly, `atom NAME: copy { ... }`) fixes how many
 * bits one lane moves per access and which instruction moves them. cg_copy_atom
 * reads a declaration's fields; cg_copy_check decides whether a copy of a view
 * (N elements, RUN of them contiguous) can be done with the atom, and why not.
 */
#ifndef FLYC_CODEGEN_COPY_H
#define FLYC_CODEGEN_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "ir.h"

typedef enum {
	CG_COPY_BUFFER,    /* buffer_load/store: the tensor is addressed by a descriptor */
	CG_COPY_GLOBAL,    /* global_load/store: 64-bit addresses */
	CG_COPY_DS,        /* ds_read/ds_write (LDS) */
	CG_COPY_LDS_DMA,   /* global/buffer load straight to LDS */
	CG_COPY_DS_TR,     /* transposed LDS reads (gfx950 ds_read_b64_tr_b*) */
	CG_COPY_GLOBAL_TR  /* transposed global loads (gfx12 global_load_tr_b128/b64): 64-bit addresses */
} CgCopyKind;

typedef struct {
	const char *name;    /* the atom's name */
	CgCopyKind kind;
	int load;            /* 1: memory -> registers; 0: registers -> memory */
	unsigned bits;       /* bits per lane per access */
	int buffer;          /* through a buffer descriptor (buffer_load/store, buffer ... lds) */
	unsigned elem_bits;  /* transposed reads: the element width exchanged (16, 8, 6, 4) */
	const Value *src_tv; /* src_layout, dst_layout: (lane, value) -> index of the atom's block, */
	const Value *dst_tv; /* for atoms that permute data across lanes (NULL: not declared) */
} CgCopyAtom;

/* 1 and *a filled when DECL (a D_ATOM node) is a copy atom; 0 otherwise. */
int cg_copy_atom(const Node *decl, CgCopyAtom *a);

/* Elements per access for atom A on elements ELEM when a view of N elements
 * has RUN contiguous ones and is in memory space SPACE (IR_SPACE_*), the view
 * being the copy's source when IS_SRC. 0 when the atom cannot do it; then
 * WHY (size WN) says why, as a sentence fragment. */
unsigned cg_copy_check(const CgCopyAtom *a, IrScalar elem, unsigned n, int64_t run,
                       int space, int is_src, char *why, size_t wn);

/* Whether, for every thread t of a one-dimensional workgroup of BLOCK
 * threads in waves of WAVE lanes, the LDS byte address of element 0 of view
 * V is the address of its wave's first lane plus lane * LANE_STRIDE (the
 * placement of a load straight to LDS). 1 yes, 0 no (WHY says where it
 * fails), -1 when the address depends on values the check cannot follow. */
int cg_lds_dma_placement(const IrFunc *f, IrRef v, unsigned block, unsigned wave,
                         unsigned lane_stride, char *why, size_t wn);

#endif
