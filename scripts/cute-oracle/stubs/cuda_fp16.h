/* flyc CuTe-oracle stub: cuda_fp16.h's types as bare 16-bit storage
   (host-only build; the layout algebra never converts a value). */
#pragma once
#include <cstdint>
struct __half_raw { unsigned short x; };
struct __half { unsigned short x;
  __half() = default;
  __half(__half_raw r) : x(r.x) {}
  operator __half_raw() const { return __half_raw{x}; } };
struct __half2 { __half x, y; };
struct __half2_raw { unsigned short x, y; };
typedef __half half;
typedef __half2 half2;
inline float __half2float(__half) { return 0.0f; }
inline __half __float2half_rn(float) { return __half(); }
inline __half __float2half(float) { return __half(); }
