// Which accelerated SHA-256 kernel this CPU can run, and the one entry point that runs it.
#include "CSHA256Kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
void gallery_sha256_compress_x86_sha(uint32_t state[8], const void *blocks, size_t count);
#elif defined(__aarch64__) || defined(_M_ARM64)
void gallery_sha256_compress_arm_sha2(uint32_t state[8], const void *blocks, size_t count);
#if defined(__linux__)
#include <sys/auxv.h>
#endif
#endif

gallery_sha256_acceleration gallery_sha256_acceleration_available(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return GALLERY_SHA256_ACCELERATION_NONE;
    const int hasSSSE3 = (ecx >> 9) & 1;
    const int hasSSE41 = (ecx >> 19) & 1;
    if (__get_cpuid_max(0, 0) < 7) return GALLERY_SHA256_ACCELERATION_NONE;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const int hasSHA = (ebx >> 29) & 1;
    return hasSSSE3 && hasSSE41 && hasSHA ? GALLERY_SHA256_ACCELERATION_X86_SHA : GALLERY_SHA256_ACCELERATION_NONE;
#elif (defined(__aarch64__) || defined(_M_ARM64)) && defined(__APPLE__)
    // Every Apple arm64 CPU has the SHA-2 instructions.
    return GALLERY_SHA256_ACCELERATION_ARM_SHA2;
#elif (defined(__aarch64__) || defined(_M_ARM64)) && defined(__linux__)
#ifndef HWCAP_SHA2
#define HWCAP_SHA2 (1UL << 6)
#endif
    return (getauxval(AT_HWCAP) & HWCAP_SHA2) ? GALLERY_SHA256_ACCELERATION_ARM_SHA2 : GALLERY_SHA256_ACCELERATION_NONE;
#else
    return GALLERY_SHA256_ACCELERATION_NONE;
#endif
}

void gallery_sha256_compress_accelerated(uint32_t state[8], const void *blocks, size_t count) {
#if defined(__x86_64__) || defined(__i386__)
    gallery_sha256_compress_x86_sha(state, blocks, count);
#elif defined(__aarch64__) || defined(_M_ARM64)
    gallery_sha256_compress_arm_sha2(state, blocks, count);
#else
    (void)state;
    (void)blocks;
    (void)count;
#endif
}
