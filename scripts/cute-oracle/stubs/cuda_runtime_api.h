/* flyc CuTe-oracle stub: cuda_runtime_api.h (host-only build, no CUDA). */
#pragma once
#include "vector_types.h"
typedef int cudaError_t;
#define cudaSuccess 0
