/*
 * sim_int.h — simulator internals shared by the decoder, the scheduler and the
 * instruction handlers (including the simx_*.c matrix/conversion handlers).
 *
 * Model
 * -----
 * A wave (SimWave) holds 64 lanes. Its vector registers are stored
 * register-major: v[r][l] is VGPR r of lane l; arch VGPRs are 0..255 and
 * AGPR k is v[256+k] (gfx950 unified register file). Rows 512.. are scratch
 * rows the executor uses for DPP/SDWA operand staging. SGPRs use the
 * hardware operand numbering, so special registers are plain indices:
 *   s[0..101] SGPRs, s[102..103] flat_scratch, s[104..105] xnack_mask,
 *   s[106..107] vcc, s[108..123] ttmp0..15, s[124] m0, s[126..127] exec.
 * SCC is a separate field.
 *
 * Each instruction is disassembled once per PC by LLVM's MC disassembler and
 * the printed text is parsed into a SimInst (operands in printed order:
 * destinations first, then sources; modifiers in named fields). Execution
 * never re-parses text.
 *
 * Handlers: every mnemonic in sim_ops.h has a handler
 *     int sim_op_<base mnemonic>(SimWave *w, const SimInst *in);
 * where the base mnemonic has the _e32/_e64/_dpp/_sdwa suffix removed (the
 * suffix is in in->enc). A handler returns SIM_NEXT (continue at pc+size),
 * SIM_JUMP (it set w->pc), SIM_BARRIER, SIM_END, or SIM_FAULT after calling
 * sim_fault(). DPP and SDWA source/destination selection is done by the
 * executor around the handler (it stages src0/src1 in scratch rows and
 * narrows EXEC), so ordinary VALU handlers need not know about them.
 *
 * Adding an instruction: write sim_op_NAME in a runtime/sim C file and
 * add one SIM_OP row to sim_ops.h.
 */
#ifndef FLY_SIM_INT_H
#define FLY_SIM_INT_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include "sim/sim.h"

enum {
	SIM_LANES = 64,         /* storage lanes of a wave (wave32 uses 0..31) */
	SIM_NVREG = 512,        /* 256 VGPRs + 256 AGPRs */
	SIM_NTMPREG = 8,        /* executor staging rows after the register file */
	SIM_NSREG = 128,
	SIM_MAX_OPS = 8,
	/* special SGPR numbers (hardware operand encoding) */
	SIM_FLAT_SCRATCH = 102, SIM_XNACK_MASK = 104, SIM_VCC = 106, SIM_TTMP0 = 108,
	SIM_M0 = 124, SIM_NULL = 125, SIM_EXEC = 126,
	SIM_AGPR0 = 256
};

/* ---- architectures ------------------------------------------------------
 * One row per simulated processor (sim_arch.c). The simulator core consults
 * the row at run time (lanes per wave, register files, LDS, where the
 * workgroup ids live, which mnemonic table decodes the text); nothing is
 * chosen at compile time. The executor's own numbering of special registers
 * (SIM_VCC, SIM_M0, SIM_EXEC, ... above) is the same for every row; the
 * hardware numbers are recorded for reference (the decoder works from
 * LLVM's printed names, never from raw register numbers). */
typedef enum { SIM_ISA_GFX9, SIM_ISA_GFX12 } SimIsa;
typedef struct SimArch {
	const char *name;        /* processor name, as in the code object's e_flags */
	const char *cpu;         /* LLVM disassembler CPU */
	uint8_t isa;             /* SimIsa: the mnemonic table (gfx9 names; sim_gfx12.h) */
	uint8_t wave_lanes;      /* lanes per wave: 64 (gfx950) or 32 (gfx1201 wave32) */
	uint8_t wave64_ok;       /* 0: a wave64 kernel is refused (gfx1201 wave64 is not modelled) */
	uint8_t nsgpr;           /* addressable SGPRs s0..s(n-1): 102 (then flat_scratch, xnack_mask) / 106 */
	uint16_t nvgpr, nagpr;   /* arch VGPRs and AGPRs per lane */
	uint32_t lds_max;        /* LDS bytes per workgroup */
	uint8_t lds_banks;       /* 4-byte LDS banks */
	uint8_t wave_slots;      /* wave slots per SIMD */
	uint8_t ttmp_wgid;       /* 1: workgroup ids in TTMP9 (x) and TTMP7 (y | z << 16) (GFX12
	                            architected SGPRs), 0: in system SGPRs after the user SGPRs */
	uint8_t hw_vcc, hw_m0, hw_null, hw_exec; /* hardware operand numbers of vcc_lo, m0, null, exec_lo
	                                            (hw_null 0: none) */
	uint32_t max_waves;      /* waves per workgroup at 1024 work-items */
} SimArch;
/* The row for a processor name ("gfx950", "gfx1201"), or NULL. */
const SimArch *sim_arch_find(const char *processor);
extern const SimArch sim_arch_gfx950;
/* The semantics row (SIM_OPC_*) of a mnemonic of arch's instruction set (suffix
 * removed), or 0 when the simulator has none. */
int sim_lookup_arch(const SimArch *arch, const char *base_mnemonic);

/* Operand kinds. */
typedef enum {
	SIM_OPK_NONE,
	SIM_OPK_SGPR,    /* reg = SGPR number above; nregs consecutive */
	SIM_OPK_VGPR,    /* reg = row in v[] (AGPR k = 256+k); nregs consecutive */
	SIM_OPK_CONST,   /* inline constant or literal: k32/kf16/k64/kf64 */
	SIM_OPK_SCC,     /* src_scc (reads SCC as 0/1) */
	SIM_OPK_OFF,     /* "off" (no address register) */
	SIM_OPK_EXECZ,   /* src_execz: 1 if EXEC is 0 */
	SIM_OPK_VCCZ     /* src_vccz: 1 if VCC is 0 */
} SimOpKind;

typedef struct {
	uint8_t kind;    /* SimOpKind */
	uint8_t nregs;   /* registers in the tuple: v[4:7] -> 4; 1 for scalars and constants */
	uint8_t neg, abs;/* float input modifiers (-x, |x|) */
	uint8_t sext;    /* SDWA sext(x) */
	uint8_t literal; /* 1: a 32-bit literal (not an inline constant) */
	uint16_t reg;    /* register number (see SimOpKind) */
	uint32_t k32;    /* CONST as a 32-bit (integer or f32) operand */
	uint16_t kf16;   /* CONST as an f16 operand (bits) */
	uint16_t kbf16;  /* CONST as a bf16 operand (bits) */
	uint64_t k64;    /* CONST as a 64-bit integer operand */
	uint64_t kf64;   /* CONST as an f64 operand (bits) */
} SimOperand;

enum { SIM_DPP8 = 0x1000 };   /* dpp_ctrl of a DPP8 instruction (selects in SimInst.dpp8) */

/* Encoding form from the mnemonic suffix. */
enum { SIM_ENC_PLAIN, SIM_ENC_E32, SIM_ENC_E64, SIM_ENC_DPP, SIM_ENC_SDWA };

/* Bits of SimInst.present: which modifiers were printed. */
enum {
	SIM_MOD_OFFSET = 1u << 0, SIM_MOD_OP_SEL = 1u << 1, SIM_MOD_OP_SEL_HI = 1u << 2,
	SIM_MOD_NEG_LO = 1u << 3, SIM_MOD_NEG_HI = 1u << 4, SIM_MOD_CLAMP = 1u << 5
};

/* SDWA selects: 0..3 BYTE_n, 4 WORD_0, 5 WORD_1, 6 DWORD; dst_unused 0 PAD, 1 SEXT, 2 PRESERVE. */
enum { SIM_SEL_BYTE0, SIM_SEL_BYTE1, SIM_SEL_BYTE2, SIM_SEL_BYTE3, SIM_SEL_WORD0, SIM_SEL_WORD1, SIM_SEL_DWORD };

typedef struct SimInst {
	uint64_t pc;          /* offset of the instruction in the code object image */
	uint16_t op;          /* row of sim_ops.h (SIM_OPC_<name>), or SIM_OPC_UNSUPPORTED */
	uint8_t size;         /* bytes: 4, 8, 12 or 16 */
	uint8_t enc;          /* SIM_ENC_* */
	uint8_t nops;         /* operands in o[] */
	uint8_t flags;        /* the row's flags (SIM_F_*) */
	SimOperand o[SIM_MAX_OPS];
	/* modifiers (0 when not printed unless noted) */
	uint32_t present;     /* SIM_MOD_* bits */
	int32_t offset;       /* offset:N (memory; may be negative), swizzle/hwreg encoded value */
	uint16_t offset0, offset1; /* ds 2-address offsets (in elements) */
	uint8_t clamp, omod;  /* omod: 0 none, 1 mul:2, 2 mul:4, 3 div:2 */
	uint8_t op_sel, op_sel_hi, neg_lo, neg_hi; /* bit i = i-th element of the printed list;
	                                             op_sel_hi is 0x7 when not printed */
	uint8_t glc, slc, nt, sc0, sc1, lds, offen, idxen, gds;
	uint16_t dpp_ctrl;    /* DPP_CTRL as encoded (quad_perm 0x00-0xff, row_shl 0x10n, ...), or SIM_DPP8 */
	uint32_t dpp8;        /* dpp8 lane selects, 3 bits each */
	uint8_t row_mask, bank_mask, bound_ctrl, fi;  /* row/bank_mask default 0xf */
	uint8_t dst_sel, dst_unused, src_sel[2];      /* SDWA (defaults DWORD / PAD) */
	uint8_t cbsz, abid, blgp;                     /* MFMA */
	uint32_t imm;         /* SOPP/SOPK immediate (s_waitcnt simm16, s_setprio, s_sleep ...),
	                         or v_bitop3's truth table (bitop3:N) */
	uint8_t imm_is_mod;   /* imm came from a modifier; operands must not overwrite it */
	uint64_t target;      /* branch target (image offset) for SOPP branches */
	uint32_t raw[4];      /* the encoding, little-endian dwords */
	struct SimInst *vopd[2]; /* VOPD (v_dual_X :: v_dual_Y): the two halves, owned by this record */
	uint8_t tcls;         /* timing model: the instruction's class (SimTmClass, sim_timing.c) */
	uint16_t tcyc;        /* timing model: pipe cycles (MFMA, VALU, NOP), set at decode */
	uint32_t twait;       /* timing model: s_waitcnt thresholds, 8 bits per counter (0xff: none) */
	char mnem[48];        /* printed mnemonic, suffix included */
	char text[160];       /* whole printed instruction (for traces and messages) */
} SimInst;

/* Handler result. */
enum { SIM_NEXT = 0, SIM_JUMP, SIM_BARRIER, SIM_END, SIM_FAULT, SIM_YIELD /* the core's: the wave's slice is used up */ };

typedef struct SimWave SimWave;
typedef struct SimWG SimWG;
typedef struct SimRun SimRun;
typedef int (*SimHandler)(SimWave *w, const SimInst *in);

/* Row flags. */
enum {
	SIM_F_NOP = 1,      /* no effect (waitcnt, hints) */
	SIM_F_2DST = 2,     /* two destinations before the sources (v_add_co_u32 v, vcc, ...) */
	SIM_F_SCALAR = 4,   /* scalar instruction (counted once, not per lane) */
};

#define SIM_OP(name, flags) SIM_OPC_##name,
enum { SIM_OPC_UNSUPPORTED = 0,
#include "sim/sim_ops.h"
	SIM_OPC_COUNT };
#undef SIM_OP
#define SIM_OP(name, flags) int sim_op_##name(SimWave *w, const SimInst *in);
#include "sim/sim_ops.h"
#undef SIM_OP

struct SimWave {
	uint32_t v[SIM_NVREG + SIM_NTMPREG][SIM_LANES];
	uint32_t s[SIM_NSREG];
	uint32_t scc;
	uint64_t pc;          /* image offset of the next instruction */
	uint32_t mode;        /* HW_REG_MODE */
	uint32_t trapsts;
	int gpr_idx_on;       /* s_set_gpr_idx_on mode active (index/mode in M0) */
	int id;               /* wave index inside the workgroup */
	int state;            /* 0 running, 1 at barrier, 2 ended */
	uint64_t init_exec;   /* lanes that exist */
	uint64_t lanemask;    /* the lanes of a wave: ~0 (wave64) or 0xffffffff (wave32) */
	int lanes;            /* 64 or 32 */
	const SimArch *arch;
	uint64_t steps;
	uint64_t quota;       /* steps at which the wave yields its turn (sim_core.c, forward progress) */
	uint64_t lane_insts;
	SimWG *wg;
	SimRun *run;
	uint8_t *scratch;     /* per-lane private memory: lane l at scratch + l*scratch_size */
	uint32_t scratch_size;
	uint32_t lastalloc;   /* cache for the allocation lookup */
	uint64_t code_size;   /* bytes of the code object image */
	uint64_t code_va;     /* device address of image offset 0 (PC as an address = code_va + pc) */
	struct SimTmWave *tm; /* timing model: this wave's record, NULL when it is not timed */
};

struct SimWG {
	uint32_t id[3];
	uint8_t *lds;
	uint32_t lds_size;
	int nwaves;
	SimWave **waves;
	uint32_t *race;       /* racecheck: per-LDS-dword last writer (wave+1) | epoch */
	uint32_t epoch;
};

/* ---- operand access -------------------------------------------------- */
/* EXEC and VCC as lane masks: in wave32 they are exec_lo and vcc_lo (the high
 * registers are not part of the mask; exec_hi stays 0). */
static inline uint64_t sim_exec(const SimWave *w) { return (w->s[SIM_EXEC] | (uint64_t)w->s[SIM_EXEC + 1] << 32) & w->lanemask; }
static inline void sim_set_exec(SimWave *w, uint64_t e)
{ e &= w->lanemask; w->s[SIM_EXEC] = (uint32_t)e; if (w->lanes == 64) w->s[SIM_EXEC + 1] = (uint32_t)(e >> 32); }
static inline uint64_t sim_vcc(const SimWave *w) { return (w->s[SIM_VCC] | (uint64_t)w->s[SIM_VCC + 1] << 32) & w->lanemask; }
static inline uint64_t sim_sreg64(const SimWave *w, unsigned r) { return w->s[r & 127] | (uint64_t)w->s[(r + 1) & 127] << 32; }

/* i-th 32-bit register of operand o for lane (constants: k32 for i 0, high half of k64 for i 1). */
static inline __attribute__((always_inline)) uint32_t sim_rd(const SimWave *w, const SimOperand *o, int i, int lane)
{
	switch (o->kind) {
	case SIM_OPK_VGPR: return w->v[o->reg + i][lane];
	case SIM_OPK_SGPR: return w->s[(o->reg + i) & 127];
	case SIM_OPK_CONST: return i == 0 ? o->k32 : (uint32_t)(o->k64 >> 32);
	case SIM_OPK_SCC: return i == 0 ? w->scc : 0;
	case SIM_OPK_EXECZ: return i == 0 ? sim_exec(w) == 0 : 0;
	case SIM_OPK_VCCZ: return i == 0 ? sim_vcc(w) == 0 : 0;
	default: return 0;
	}
}
static inline __attribute__((always_inline)) uint32_t sim_rd32(const SimWave *w, const SimOperand *o, int lane) { return sim_rd(w, o, 0, lane); }
static inline __attribute__((always_inline)) uint64_t sim_rd64(const SimWave *w, const SimOperand *o, int lane)
{
	if (o->kind == SIM_OPK_CONST) return o->k64;
	return sim_rd(w, o, 0, lane) | (uint64_t)sim_rd(w, o, 1, lane) << 32;
}
static inline __attribute__((always_inline)) uint64_t sim_rdf64bits(const SimWave *w, const SimOperand *o, int lane)
{
	if (o->kind == SIM_OPK_CONST) return o->kf64;
	return sim_rd(w, o, 0, lane) | (uint64_t)sim_rd(w, o, 1, lane) << 32;
}
/* Write the i-th 32-bit register of a VGPR or SGPR destination. An SGPR
 * destination takes only the registers it names: a lane mask written to vcc_lo
 * or s4 (wave32) keeps its low 32 bits. */
static inline __attribute__((always_inline)) void sim_wr(SimWave *w, const SimOperand *o, int i, int lane, uint32_t v)
{
	if (o->kind == SIM_OPK_VGPR) w->v[o->reg + i][lane] = v;
	else if (o->kind == SIM_OPK_SGPR && i < o->nregs) { unsigned r = (o->reg + i) & 127; if (r != SIM_NULL) w->s[r] = v; }
}
static inline __attribute__((always_inline)) void sim_wr64(SimWave *w, const SimOperand *o, int lane, uint64_t v)
{
	sim_wr(w, o, 0, lane, (uint32_t)v); sim_wr(w, o, 1, lane, (uint32_t)(v >> 32));
}

/* Iterate over the active lanes of EXEC. */
#define SIM_FOR_LANES(w, l) for (uint64_t _m = sim_exec(w); _m; _m &= _m - 1) \
	for (int l = __builtin_ctzll(_m), _once = 1; _once; _once = 0)

/* ---- services of the core (sim_core.c) ---------------------------------- */
/* Report a fault: formats the message (prefixed with kernel, workgroup, wave
 * and PC by the core) and returns SIM_FAULT. */
int sim_fault(SimWave *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Host pointer for n bytes of device global memory at va, or NULL after
 * reporting a violation for lane (lane -1 = scalar access). */
void *sim_gptr(SimWave *w, uint64_t va, uint32_t n, int lane, int write);
/* Host pointer for n bytes of device memory at va if it is wholly inside one
 * allocation, else NULL without reporting (buffer/probe use). */
void *sim_gptr_try(SimWave *w, uint64_t va, uint32_t n);
/* LDS pointer (checked against the workgroup's LDS size), or NULL after reporting.
 * write: 0 read, 1 write, 2 atomic (exempt from --racecheck). */
void *sim_lptr(SimWave *w, uint32_t addr, uint32_t n, int lane, int write);
/* Scratch pointer for a lane (checked), or NULL after reporting. */
void *sim_pptr(SimWave *w, uint32_t addr, uint32_t n, int lane, int write);
/* Flat address: dispatches to LDS / scratch apertures or global memory. */
void *sim_fptr(SimWave *w, uint64_t va, uint32_t n, int lane, int write);
/* Serialises global atomics between host threads. */
void sim_atomic_lock(SimWave *w);
void sim_atomic_unlock(SimWave *w);

/* Atomic operations on one 4- or 8-byte memory word (sim_vmem.c), shared by
 * the vector (FLAT/GLOBAL/MUBUF/DS) and scalar (SMEM) atomics. v is the data,
 * c the compare value (cmpswap) or the OR mask (mskor). Returns the old value. */
enum { SIM_A_SWAP, SIM_A_CMPSWAP, SIM_A_ADD, SIM_A_SUB, SIM_A_SMIN, SIM_A_UMIN, SIM_A_SMAX, SIM_A_UMAX,
       SIM_A_AND, SIM_A_OR, SIM_A_XOR, SIM_A_INC, SIM_A_DEC, SIM_A_ADD_F32, SIM_A_PK_ADD_F16,
       SIM_A_PK_ADD_BF16, SIM_A_ADD_F64, SIM_A_MIN_F64, SIM_A_MAX_F64, SIM_A_RSUB, SIM_A_MIN_F32,
       SIM_A_MAX_F32, SIM_A_MSKOR };
uint64_t sim_atomic_apply(uint8_t *p, int op, int wide, uint64_t v, uint64_t c);

/* Apertures (high 32 bits of flat addresses that reach LDS / scratch). */
#define SIM_SHARED_APERTURE  0x0001000000000000ull
#define SIM_PRIVATE_APERTURE 0x0002000000000000ull
#define SIM_APERTURE_MASK    0xffffffff00000000ull

/* ---- decoder (sim_decode.c) ---------------------------------------------- */
/* Decode the instruction at image offset pc of co into *out. Returns 0, or -1
 * with a message (bytes not decodable). Unsupported mnemonics decode with
 * op = SIM_OPC_UNSUPPORTED. */
int sim_decode(const CoObject *co, uint64_t pc, SimInst *out, char *err, size_t errlen);
/* Parse one line of LLVM assembly text (as the disassembler prints it) into
 * *out: gfx9 syntax (sim_parse_text) or that of arch's instruction set. */
int sim_parse_text(const char *text, SimInst *out, char *err, size_t errlen);
int sim_parse_text_arch(const SimArch *arch, const char *text, SimInst *out, char *err, size_t errlen);
/* Release what a decoded record owns (the halves of a VOPD pair), not the record. */
void sim_inst_release(SimInst *in);
int sim_lookup_op(const char *base_mnemonic);        /* SIM_OPC_* or 0 */
extern const char *const sim_op_names[SIM_OPC_COUNT];
extern const SimHandler sim_op_handlers[SIM_OPC_COUNT];
extern const uint8_t sim_op_flags[SIM_OPC_COUNT];

/* ---- timing model (sim_timing.c) ---------------------------------------
 * The core calls these only for timed waves (w->tm set): sim_tm_access for
 * every global (space 0) or LDS (space 1) access of the instruction being
 * run, sim_tm_record after its handler returned r. sim_tm_classify runs once
 * per decoded instruction. */
typedef struct SimTmWave SimTmWave;
typedef struct SimTmRun SimTmRun;
void sim_tm_classify(const SimArch *arch, SimInst *in);
void sim_tm_access(SimWave *w, int space, uint64_t addr, uint32_t n, int lane, int write);
void sim_tm_record(SimWave *w, const SimInst *in, int r);
/* A launch's timing: NULL (and a message) for an unknown device. kernel
 * resources from the descriptor; nwg workgroups. */
SimTmRun *sim_tm_begin(const SimTimingConfig *cfg, const SimArch *arch, const CoKernel *k, uint64_t nwg,
                       int nwaves, uint32_t lds, int lanes, char *err, size_t errlen);
/* The sampled workgroups in linear order (count in *n). */
const uint64_t *sim_tm_samples(const SimTmRun *t, uint64_t *n);
/* The record of wave wid of workgroup lin, NULL if lin is not sampled. */
SimTmWave *sim_tm_wave(SimTmRun *t, uint64_t lin, int wid);
/* Replay and extrapolate; alloc_of maps a device address to its allocation
 * (base, size; 0 if found). Frees t. */
void sim_tm_end(SimTmRun *t, int (*alloc_of)(void *, uint64_t, uint64_t *, uint64_t *), void *ctx, SimTiming *out);
void sim_tm_free(SimTmRun *t);

/* ---- number helpers (sim_float.c) ---------------------------------------- */
float sim_f16_to_f32(uint16_t h);
uint16_t sim_f32_to_f16(float f);               /* round to nearest even */
float sim_bf16_to_f32(uint16_t h);
uint16_t sim_f32_to_bf16(float f);              /* round to nearest even, NaN kept quiet */
static inline float sim_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint32_t sim_u32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double sim_f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static inline uint64_t sim_u64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

#endif
