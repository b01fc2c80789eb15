// Which wide ChaCha20-Poly1305 kernels this CPU can run, and the entry points that run them.
#include "CChaChaPolyKernels.h"

#if defined(__x86_64__)
#include <cpuid.h>
void gallery_chacha20_xor_avx2(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                               const void *input, void *output, size_t length);
void gallery_chacha20_xor_avx512vl(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                                   const void *input, void *output, size_t length);
void gallery_poly1305_blocks_avx2(uint64_t h[5], const uint64_t r[5], const void *blocks, size_t count);

/// XCR0, the register in which the OS says which register state it saves on a context switch.
static uint64_t gallery_read_xcr0(void) {
    uint32_t eax = 0, edx = 0;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}
#endif

gallery_chacha20_acceleration gallery_chacha20_acceleration_available(void) {
#if defined(__x86_64__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return GALLERY_CHACHA20_ACCELERATION_NONE;
    const int hasOSXSAVE = (ecx >> 27) & 1;
    const int hasAVX = (ecx >> 28) & 1;
    if (!hasOSXSAVE || !hasAVX) return GALLERY_CHACHA20_ACCELERATION_NONE;
    // Bits 1 (XMM) and 2 (YMM): the OS saves the full YMM registers.
    if ((gallery_read_xcr0() & 0x6) != 0x6) return GALLERY_CHACHA20_ACCELERATION_NONE;
    if (__get_cpuid_max(0, 0) < 7) return GALLERY_CHACHA20_ACCELERATION_NONE;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const int hasAVX2 = (ebx >> 5) & 1;
    if (!hasAVX2) return GALLERY_CHACHA20_ACCELERATION_NONE;
    const int hasAVX512F = (ebx >> 16) & 1;
    const int hasAVX512VL = (ebx >> 31) & 1;
    // Bits 5-7 (opmask, upper halves of ZMM0-15, ZMM16-31): the OS saves the AVX-512 state.
    const int savesAVX512 = (gallery_read_xcr0() & 0xE0) == 0xE0;
    return hasAVX512F && hasAVX512VL && savesAVX512 ? GALLERY_CHACHA20_ACCELERATION_X86_AVX512VL
                                                    : GALLERY_CHACHA20_ACCELERATION_X86_AVX2;
#else
    return GALLERY_CHACHA20_ACCELERATION_NONE;
#endif
}

void gallery_chacha20_xor_accelerated(gallery_chacha20_acceleration acceleration, const uint32_t key[8],
                                      const uint32_t nonce[3], uint32_t counter,
                                      const void *input, void *output, size_t length) {
#if defined(__x86_64__)
    switch (acceleration) {
    case GALLERY_CHACHA20_ACCELERATION_X86_AVX512VL:
        gallery_chacha20_xor_avx512vl(key, nonce, counter, input, output, length);
        break;
    case GALLERY_CHACHA20_ACCELERATION_X86_AVX2:
        gallery_chacha20_xor_avx2(key, nonce, counter, input, output, length);
        break;
    default:
        break;
    }
#else
    (void)acceleration;
    (void)key;
    (void)nonce;
    (void)counter;
    (void)input;
    (void)output;
    (void)length;
#endif
}

void gallery_poly1305_blocks_accelerated(uint64_t h[5], const uint64_t r[5], const void *blocks, size_t count) {
#if defined(__x86_64__)
    gallery_poly1305_blocks_avx2(h, r, blocks, count);
#else
    (void)h;
    (void)r;
    (void)blocks;
    (void)count;
#endif
}
