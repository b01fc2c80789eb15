// ChaCha20 eight blocks at a time with AVX2: rotations by 16 and 8 as byte shuffles, by 12 and 7
// as two shifts and an OR. Compiled for every x86-64 CPU; only called when CPUID and XGETBV say yes.
#include "CChaChaPolyKernels.h"

#if defined(__x86_64__)

#define GALLERY_CHACHA20_TARGET "avx2"
#define GALLERY_CHACHA20_FUNCTION gallery_chacha20_xor_avx2
#define GALLERY_ROTL16(v) _mm256_shuffle_epi8((v), rotate16)
#define GALLERY_ROTL8(v) _mm256_shuffle_epi8((v), rotate8)
#define GALLERY_ROTL(v, n) _mm256_or_si256(_mm256_slli_epi32((v), (n)), _mm256_srli_epi32((v), 32 - (n)))
#include "ChaCha20KernelBody.h"

#endif
