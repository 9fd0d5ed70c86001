/* flyc CuTe-oracle stub: cuda.h (host-only build, no CUDA) */
#pragma once
