// SHA-256 block compression with the ARMv8 Cryptography Extension's SHA-2 instructions (SHA256H,
// SHA256H2, SHA256SU0, SHA256SU1), written from the Arm ACLE description of their intrinsics.
// Compiled for every AArch64 CPU; only called when the auxiliary vector says the CPU has them.
#include "CSHA256Kernels.h"
#include "SHA256RoundConstants.h"

#if defined(__aarch64__) || defined(_M_ARM64)

#include <arm_neon.h>

#if defined(__ARM_FEATURE_SHA2)
#define GALLERY_SHA256_ARM_TARGET
#else
#define GALLERY_SHA256_ARM_TARGET __attribute__((target("sha2")))
#endif

/// Four rounds: adds K[4i...4i+3] to W[4i...4i+3] and runs SHA256H (new ABCD) and SHA256H2
/// (new EFGH), both from the state before these rounds.
#define GALLERY_SHA256_ROUNDS4(message, group)                                                     \
    do {                                                                                            \
        const uint32x4_t sums = vaddq_u32((message), vld1q_u32(gallery_sha256_round_constants + 4 * (group))); \
        const uint32x4_t abcdBeforeRounds = abcd;                                                   \
        abcd = vsha256hq_u32(abcd, efgh, sums);                                                     \
        efgh = vsha256h2q_u32(efgh, abcdBeforeRounds, sums);                                        \
    } while (0)

/// The next four schedule words into `w0` (which held W[t-16...t-13]) from the twelve after it.
#define GALLERY_SHA256_SCHEDULE(w0, w1, w2, w3) (w0) = vsha256su1q_u32(vsha256su0q_u32((w0), (w1)), (w2), (w3))

GALLERY_SHA256_ARM_TARGET
void gallery_sha256_compress_arm_sha2(uint32_t state[8], const void *blocks, size_t count) {
    uint32x4_t abcd = vld1q_u32(&state[0]);
    uint32x4_t efgh = vld1q_u32(&state[4]);

    const uint8_t *block = (const uint8_t *)blocks;
    for (size_t index = 0; index < count; index++, block += 64) {
        const uint32x4_t abcdBefore = abcd;
        const uint32x4_t efghBefore = efgh;

        // Big-endian words: reverse the bytes of each 32-bit lane.
        uint32x4_t w0 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 0)));
        uint32x4_t w1 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 16)));
        uint32x4_t w2 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 32)));
        uint32x4_t w3 = vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block + 48)));

        GALLERY_SHA256_ROUNDS4(w0, 0);
        GALLERY_SHA256_ROUNDS4(w1, 1);
        GALLERY_SHA256_ROUNDS4(w2, 2);
        GALLERY_SHA256_ROUNDS4(w3, 3);

        GALLERY_SHA256_SCHEDULE(w0, w1, w2, w3); GALLERY_SHA256_ROUNDS4(w0, 4);
        GALLERY_SHA256_SCHEDULE(w1, w2, w3, w0); GALLERY_SHA256_ROUNDS4(w1, 5);
        GALLERY_SHA256_SCHEDULE(w2, w3, w0, w1); GALLERY_SHA256_ROUNDS4(w2, 6);
        GALLERY_SHA256_SCHEDULE(w3, w0, w1, w2); GALLERY_SHA256_ROUNDS4(w3, 7);
        GALLERY_SHA256_SCHEDULE(w0, w1, w2, w3); GALLERY_SHA256_ROUNDS4(w0, 8);
        GALLERY_SHA256_SCHEDULE(w1, w2, w3, w0); GALLERY_SHA256_ROUNDS4(w1, 9);
        GALLERY_SHA256_SCHEDULE(w2, w3, w0, w1); GALLERY_SHA256_ROUNDS4(w2, 10);
        GALLERY_SHA256_SCHEDULE(w3, w0, w1, w2); GALLERY_SHA256_ROUNDS4(w3, 11);
        GALLERY_SHA256_SCHEDULE(w0, w1, w2, w3); GALLERY_SHA256_ROUNDS4(w0, 12);
        GALLERY_SHA256_SCHEDULE(w1, w2, w3, w0); GALLERY_SHA256_ROUNDS4(w1, 13);
        GALLERY_SHA256_SCHEDULE(w2, w3, w0, w1); GALLERY_SHA256_ROUNDS4(w2, 14);
        GALLERY_SHA256_SCHEDULE(w3, w0, w1, w2); GALLERY_SHA256_ROUNDS4(w3, 15);

        abcd = vaddq_u32(abcd, abcdBefore);
        efgh = vaddq_u32(efgh, efghBefore);
    }

    vst1q_u32(&state[0], abcd);
    vst1q_u32(&state[4], efgh);
}

#else

/// Keeps this translation unit non-empty on other architectures.
typedef int gallery_sha256_no_arm_kernel;

#endif
