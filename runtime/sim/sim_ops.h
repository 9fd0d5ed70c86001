/*
 * sim_ops.h — THE instruction table of the simulator (X-macro).
 *
 *   SIM_OP(base_mnemonic, flags)
 *
 * base_mnemonic is LLVM's printed mnemonic without the _e32/_e64/_dpp/_sdwa
 * suffix; its handler is int sim_op_<base_mnemonic>(SimWave *, const SimInst *)
 * (see sim_int.h). flags are SIM_F_* bits. No include guard: the includer
 * defines SIM_OP. Rows are grouped by instruction class; keep one row per line.
 */
/* ---- SOPP / control ---- */
SIM_OP(s_endpgm, SIM_F_SCALAR)
SIM_OP(s_nop, SIM_F_SCALAR | SIM_F_NOP)
/* ---- matrix, narrow-float conversion and transposed-LDS rows (simx) ---- */
#include "sim/simx_ops.h"
