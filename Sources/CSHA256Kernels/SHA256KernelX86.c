// SHA-256 block compression with the x86-64 SHA extensions, written from Intel's description of
// SHA256RNDS2, SHA256MSG1 and SHA256MSG2 ("Intel SHA Extensions", Intel 64 and IA-32 Architectures
// Software Developer's Manual). Compiled for every x86-64 CPU; only called when CPUID says yes.
#include "CSHA256Kernels.h"
#include "SHA256RoundConstants.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

/// Four rounds: adds K[4i...4i+3] to the schedule words `message` (W[4i...4i+3]) and runs two
/// SHA256RNDS2, each of which takes two of the sums from its low 64 bits and swaps the roles of
/// the two state halves (its result is the new ABEF; the ABEF it was given is the new CDGH).
#define GALLERY_SHA256_ROUNDS4(message, group)                                                     \
    do {                                                                                            \
        __m128i sums = _mm_add_epi32(                                                               \
            (message), _mm_load_si128((const __m128i *)(gallery_sha256_round_constants + 4 * (group)))); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sums);                                             \
        sums = _mm_shuffle_epi32(sums, 0x0E);                                                       \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, sums);                                             \
    } while (0)

/// The next four schedule words W[t...t+3] into `w0` (which held W[t-16...t-13]), from
/// w1 = W[t-12...t-9], w2 = W[t-8...t-5] and w3 = W[t-4...t-1]:
/// MSG1 adds σ0(W[t-15]) to W[t-16], the add brings in W[t-7], MSG2 adds σ1(W[t-2]).
#define GALLERY_SHA256_SCHEDULE(w0, w1, w2, w3)                                                     \
    (w0) = _mm_sha256msg2_epu32(                                                                    \
        _mm_add_epi32(_mm_sha256msg1_epu32((w0), (w1)), _mm_alignr_epi8((w3), (w2), 4)), (w3))

__attribute__((target("sha,sse4.1")))
void gallery_sha256_compress_x86_sha(uint32_t state[8], const void *blocks, size_t count) {
    // Big-endian words: reverse the bytes of each 32-bit lane.
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    // SHA256RNDS2 keeps the state as two vectors, (A, B, E, F) and (C, D, G, H), highest lane first.
    __m128i dcba = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    const unsigned char *block = (const unsigned char *)blocks;
    for (size_t index = 0; index < count; index++, block += 64) {
        const __m128i abefBefore = abef;
        const __m128i cdghBefore = cdgh;

        __m128i w0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 0)), byteSwap);
        __m128i w1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16)), byteSwap);
        __m128i w2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 32)), byteSwap);
        __m128i w3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 48)), byteSwap);

        // Rounds 0-15 use the message words as they are.
        GALLERY_SHA256_ROUNDS4(w0, 0);
        GALLERY_SHA256_ROUNDS4(w1, 1);
        GALLERY_SHA256_ROUNDS4(w2, 2);
        GALLERY_SHA256_ROUNDS4(w3, 3);

        // Rounds 16-63 extend the schedule four words at a time, rotating the four registers.
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

        abef = _mm_add_epi32(abef, abefBefore);
        cdgh = _mm_add_epi32(cdgh, cdghBefore);
    }

    // Back to H0...H7 in memory order.
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

#else

/// Keeps this translation unit non-empty on other architectures.
typedef int gallery_sha256_no_x86_kernel;

#endif
