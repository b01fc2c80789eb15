// ChaCha20 eight blocks at a time in 256-bit registers with AVX-512VL's rotate (VPROLD): one
// instruction per rotation instead of a shuffle or three (a third faster than the AVX2 kernel on
// the AMD EPYC of BENCHMARKS.md). Compiled for every x86-64 CPU; only called when CPUID and XGETBV
// say the CPU has AVX-512F and AVX-512VL and the OS saves their state.
#include "CChaChaPolyKernels.h"

#if defined(__x86_64__)

#define GALLERY_CHACHA20_TARGET "avx2,avx512f,avx512vl"
#define GALLERY_CHACHA20_FUNCTION gallery_chacha20_xor_avx512vl
#define GALLERY_ROTL16(v) _mm256_rol_epi32((v), 16)
#define GALLERY_ROTL8(v) _mm256_rol_epi32((v), 8)
#define GALLERY_ROTL(v, n) _mm256_rol_epi32((v), (n))
#include "ChaCha20KernelBody.h"

#endif
