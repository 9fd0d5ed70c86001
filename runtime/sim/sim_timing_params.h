/*
 * sim_timing_params.h — every tunable constant of the simulator's timing
 * model, one row per modelled device (sim_timing.c; docs/simulator.md
 * "Timing model" gives the source of each number). Calibration fits these
 * columns; nothing else in the model is a free constant.
 *
 * Tags in the comments: [S] a public source named in docs/simulator.md,
 * [D] derived from [S] figures, [A] an assumption awaiting calibration.
 */
#ifndef FLY_SIM_TIMING_PARAMS_H
#define FLY_SIM_TIMING_PARAMS_H

typedef struct SimTimingDevice {
	const char *name;        /* --device= NAME */
	const char *arch;        /* processor whose code objects it times */
	int cus;                 /* compute units [S] */
	double clock_mhz;        /* peak engine clock [S] */
	double hbm_gbps;         /* DRAM bandwidth, GB/s [S] */
	int simds;               /* SIMDs per CU [S] */
	int issue_period;        /* cycles between two issue turns of one SIMD [S GCN] */
	int wave_slots;          /* waves per SIMD at most [S] */
	int vgpr_file;           /* VGPRs per lane of a SIMD for the occupancy formula [S] */
	int vgpr_gran;           /* allocation granule of that formula [S] */
	int lds_cu;              /* LDS bytes per CU [S] */
	int max_wg_cu;           /* workgroups resident on one CU at most [A] */
	int lds_banks;           /* 4-byte LDS banks [S] */
	int valu_cycles;         /* VALU pipe cycles of a whole-wave instruction [D] */
	int trans_cycles;        /* transcendental (v_exp, v_rcp, ...) [A quarter rate] */
	int salu_cycles;         /* SALU [A] */
	int lds_latency;         /* LDS issue to data, after the bank cycles [A] */
	int smem_latency;        /* scalar load to data (scalar cache hit) [A] */
	int l2_latency;          /* vector load to data, L2 hit, loaded [A, gfx950 rows fitted] */
	int hbm_latency;         /* vector load to data, L2 miss, loaded [A, gfx950 rows fitted] */
	double l2_bytes_cycle;   /* L2 -> CU bytes per cycle, per CU [D] */
	int line_bytes;          /* request granule counted by the memory model [A] */
	int vmem_issue;          /* cycles a vector memory instruction holds the CU's address unit [A] */
	int barrier_cycles;      /* from the last wave's arrival to the release [A] */
	int dispatch_cycles;     /* from a workgroup slot freeing to the next workgroup's first issue [A] */
	int launch_cycles;       /* once per launch (front end, first dispatch, drain) [A, gfx950 rows fitted] */
	double f16_flops;        /* matrix FLOP per cycle per SIMD: f16/bf16 [D] */
	double f8_flops;         /* fp8/bf8/int8 [D] */
	double f4_flops;         /* fp6/fp4 [D] */
	double f32_flops;        /* f32/xf32 [D] */
	double f64_flops;        /* f64 [D] */
	double mfma_clock_mhz;   /* engine clock with every matrix pipe busy (power-limited) [D, fitted] */
} SimTimingDevice;

/* The rows. The first is the default device. */
#define SIM_TIMING_DEVICES \
	/* name      arch       cus  MHz    GB/s    simd per slots vgpr gran lds_cu   wg banks valu trans salu lds smem  l2  hbm  l2B/c line ta bar disp launch  f16   f8    f4    f32  f64  mclk */ \
	X("mi355x",  "gfx950",  256, 2400.0, 8000.0, 4,   4,  8,   512, 8,   163840,  16, 64,   4,   16,   1,  64, 200, 1000,1200, 64.0, 64,  4, 16, 200, 12150,1024, 2048, 4096, 64, 32, 1360.0) \
	X("mi350x",  "gfx950",  256, 2200.0, 8000.0, 4,   4,  8,   512, 8,   163840,  16, 64,   4,   16,   1,  64, 200, 1000,1200, 64.0, 64,  4, 16, 200, 11138,1024, 2048, 4096, 64, 32, 1247.0) \
	X("rx9070xt","gfx1201", 64, 2970.0, 640.0,  2,   1,  16,  1536, 24, 65536,   16, 32,   1,   4,    1,  64, 200,  300, 800, 64.0, 64,  1, 16, 200, 2970, 512,  1024, 1024, 32, 2,  2970.0)

#endif
