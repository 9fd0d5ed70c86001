/* flyc CuTe-oracle stub: cuda_bf16.h's types as bare 16-bit storage
   (host-only build; the layout algebra never converts a value). */
#pragma once
#include <cstdint>
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat16 { unsigned short x;
  __nv_bfloat16() = default;
  __nv_bfloat16(__nv_bfloat16_raw r) : x(r.x) {}
  operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{x}; } };
struct __nv_bfloat162 { __nv_bfloat16 x, y; };
