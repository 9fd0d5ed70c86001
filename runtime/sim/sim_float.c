/*
 * sim_float.c — f16 and bf16 conversions (bit exact, round to nearest even).
 */
#include "sim/sim_int.h"

float sim_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, u;
	if (exp == 0x1f) u = sign | 0x7f800000u | man << 13;          /* inf / nan (payload kept) */
	else if (exp) u = sign | (exp + 112) << 23 | man << 13;
	else if (!man) u = sign;
	else {                                                        /* subnormal: normalise */
		int e = -1;
		do { man <<= 1; e++; } while (!(man & 0x400));
		u = sign | (uint32_t)(112 - e) << 23 | (man & 0x3ff) << 13;
	}
	return sim_f32(u);
}

uint16_t sim_f32_to_f16(float f)
{
	uint32_t u = sim_u32(f);
	uint32_t sign = (u >> 16) & 0x8000, exp = (u >> 23) & 0xff, man = u & 0x7fffff;
	if (exp == 0xff) return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
	int e = (int)exp - 127 + 15;
	if (e >= 0x1f) return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10) return (uint16_t)sign;
		man |= 0x800000;
		int shift = 14 - e;
		uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
		if (rem > half || (rem == half && (h & 1))) h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = (uint32_t)e << 10 | man >> 13, rem = man & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;   /* may carry into the exponent: correct */
	return (uint16_t)(sign | h);
}

float sim_bf16_to_f32(uint16_t h) { return sim_f32((uint32_t)h << 16); }

uint16_t sim_f32_to_bf16(float f)
{
	uint32_t u = sim_u32(f);
	if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}
