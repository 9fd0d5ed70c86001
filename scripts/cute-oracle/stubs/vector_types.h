/* flyc CuTe-oracle stub: the CUDA vector types CUTLASS names, as plain
   host structs (host-only build, no CUDA).  Written for flyc. */
#pragma once
#define FLYC_VEC2(T, N) struct N##2 { T x, y; };
#define FLYC_VEC3(T, N) struct N##3 { T x, y, z; };
#define FLYC_VEC4(T, N) struct N##4 { T x, y, z, w; };
#define FLYC_VECS(T, N) struct N##1 { T x; }; FLYC_VEC2(T, N) FLYC_VEC3(T, N) FLYC_VEC4(T, N)
FLYC_VECS(signed char, char)
FLYC_VECS(unsigned char, uchar)
FLYC_VECS(short, short)
FLYC_VECS(unsigned short, ushort)
FLYC_VECS(int, int)
FLYC_VECS(unsigned int, uint)
FLYC_VECS(long, long)
FLYC_VECS(unsigned long, ulong)
FLYC_VECS(long long, longlong)
FLYC_VECS(unsigned long long, ulonglong)
FLYC_VECS(float, float)
FLYC_VECS(double, double)
struct dim3 { unsigned x = 1, y = 1, z = 1; };
