/* flyc CuTe-oracle stub: cuda_runtime.h (host-only build, no CUDA) */
#pragma once
