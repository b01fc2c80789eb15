// Poly1305 (RFC 8439 section 2.5) four blocks at a time with AVX2: four accumulators, one per
// 64-bit lane, in five 26-bit limbs (one vector per limb); each step multiplies them by r^4 and
// adds the next four blocks, and the last step by r^4, r^3, r^2, r (lane by lane), so that their
// sum is the accumulator the one-block-at-a-time code would have. Products are VPMULUDQ (32 x 32
// -> 64 bits). Compiled for every x86-64 CPU; only called when CPUID and XGETBV say AVX2.
#include "CChaChaPolyKernels.h"

#if defined(__x86_64__)

#include <immintrin.h>

/// (a * b) mod 2^130 - 5 in 26-bit limbs, carried so that every limb is below 2^26 but the second
/// (below 2^26 + 2^6): the scalar step the Swift code runs per block, for the powers of r.
static void gallery_poly1305_multiply(uint64_t out[5], const uint64_t a[5], const uint64_t b[5]) {
    const uint64_t s1 = b[1] * 5, s2 = b[2] * 5, s3 = b[3] * 5, s4 = b[4] * 5;
    uint64_t d0 = a[0] * b[0] + a[1] * s4 + a[2] * s3 + a[3] * s2 + a[4] * s1;
    uint64_t d1 = a[0] * b[1] + a[1] * b[0] + a[2] * s4 + a[3] * s3 + a[4] * s2;
    uint64_t d2 = a[0] * b[2] + a[1] * b[1] + a[2] * b[0] + a[3] * s4 + a[4] * s3;
    uint64_t d3 = a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0] + a[4] * s4;
    uint64_t d4 = a[0] * b[4] + a[1] * b[3] + a[2] * b[2] + a[3] * b[1] + a[4] * b[0];
    uint64_t c = d0 >> 26; out[0] = d0 & 0x3ffffff;
    d1 += c; c = d1 >> 26; out[1] = d1 & 0x3ffffff;
    d2 += c; c = d2 >> 26; out[2] = d2 & 0x3ffffff;
    d3 += c; c = d3 >> 26; out[3] = d3 & 0x3ffffff;
    d4 += c; c = d4 >> 26; out[4] = d4 & 0x3ffffff;
    out[0] += c * 5; c = out[0] >> 26; out[0] &= 0x3ffffff;
    out[1] += c;
}

/// H = H * R + 0 lane by lane, with S = 5 * R, then carried (every lane of every limb below 2^27).
#define GALLERY_POLY_MULTIPLY(h0, h1, h2, h3, h4, r0, r1, r2, r3, r4, s1, s2, s3, s4)                  \
    do {                                                                                               \
        __m256i d0 = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h0, r0), _mm256_mul_epu32(h1, s4)), \
                     _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h2, s3), _mm256_mul_epu32(h3, s2)), \
                                      _mm256_mul_epu32(h4, s1)));                                      \
        __m256i d1 = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h0, r1), _mm256_mul_epu32(h1, r0)), \
                     _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h2, s4), _mm256_mul_epu32(h3, s3)), \
                                      _mm256_mul_epu32(h4, s2)));                                      \
        __m256i d2 = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h0, r2), _mm256_mul_epu32(h1, r1)), \
                     _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h2, r0), _mm256_mul_epu32(h3, s4)), \
                                      _mm256_mul_epu32(h4, s3)));                                      \
        __m256i d3 = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h0, r3), _mm256_mul_epu32(h1, r2)), \
                     _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h2, r1), _mm256_mul_epu32(h3, r0)), \
                                      _mm256_mul_epu32(h4, s4)));                                      \
        __m256i d4 = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h0, r4), _mm256_mul_epu32(h1, r3)), \
                     _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h2, r2), _mm256_mul_epu32(h3, r1)), \
                                      _mm256_mul_epu32(h4, r0)));                                      \
        __m256i c = _mm256_srli_epi64(d0, 26); h0 = _mm256_and_si256(d0, mask26);                      \
        d1 = _mm256_add_epi64(d1, c); c = _mm256_srli_epi64(d1, 26); h1 = _mm256_and_si256(d1, mask26); \
        d2 = _mm256_add_epi64(d2, c); c = _mm256_srli_epi64(d2, 26); h2 = _mm256_and_si256(d2, mask26); \
        d3 = _mm256_add_epi64(d3, c); c = _mm256_srli_epi64(d3, 26); h3 = _mm256_and_si256(d3, mask26); \
        d4 = _mm256_add_epi64(d4, c); c = _mm256_srli_epi64(d4, 26); h4 = _mm256_and_si256(d4, mask26); \
        h0 = _mm256_add_epi64(h0, _mm256_add_epi64(c, _mm256_slli_epi64(c, 2)));                       \
        c = _mm256_srli_epi64(h0, 26); h0 = _mm256_and_si256(h0, mask26);                              \
        h1 = _mm256_add_epi64(h1, c);                                                                  \
    } while (0)

/// Adds four blocks at `block` (lane j = block j, with the 2^128 bit) to H.
#define GALLERY_POLY_ADD_BLOCKS(block)                                                                 \
    do {                                                                                               \
        const __m256i low = _mm256_loadu_si256((const __m256i *)(block));                              \
        const __m256i high = _mm256_loadu_si256((const __m256i *)((block) + 32));                      \
        /* Words 0 and 1 of blocks 0, 1, 2, 3 (unpack works within 128-bit halves: fix the order). */  \
        const __m256i t0 = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(low, high), 0xD8);           \
        const __m256i t1 = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(low, high), 0xD8);           \
        h0 = _mm256_add_epi64(h0, _mm256_and_si256(t0, mask26));                                       \
        h1 = _mm256_add_epi64(h1, _mm256_and_si256(_mm256_srli_epi64(t0, 26), mask26));                \
        h2 = _mm256_add_epi64(h2, _mm256_and_si256(                                                    \
            _mm256_or_si256(_mm256_srli_epi64(t0, 52), _mm256_slli_epi64(t1, 12)), mask26));           \
        h3 = _mm256_add_epi64(h3, _mm256_and_si256(_mm256_srli_epi64(t1, 14), mask26));                \
        h4 = _mm256_add_epi64(h4, _mm256_or_si256(_mm256_srli_epi64(t1, 40), hibit));                  \
    } while (0)

__attribute__((target("avx2")))
void gallery_poly1305_blocks_avx2(uint64_t h[5], const uint64_t r[5], const void *blocks, size_t count) {
    const unsigned char *block = (const unsigned char *)blocks;
    const __m256i mask26 = _mm256_set1_epi64x(0x3ffffff);
    const __m256i hibit = _mm256_set1_epi64x(1 << 24);

    // r^2, r^3, r^4.
    uint64_t r2[5], r3[5], r4[5];
    gallery_poly1305_multiply(r2, r, r);
    gallery_poly1305_multiply(r3, r2, r);
    gallery_poly1305_multiply(r4, r2, r2);

    // The accumulator goes into lane 0 (it meets block 0); the other lanes start at zero.
    __m256i h0 = _mm256_set_epi64x(0, 0, 0, (long long)h[0]);
    __m256i h1 = _mm256_set_epi64x(0, 0, 0, (long long)h[1]);
    __m256i h2 = _mm256_set_epi64x(0, 0, 0, (long long)h[2]);
    __m256i h3 = _mm256_set_epi64x(0, 0, 0, (long long)h[3]);
    __m256i h4 = _mm256_set_epi64x(0, 0, 0, (long long)h[4]);

    // Every lane times r^4 for all steps but the last.
    {
        const __m256i q0 = _mm256_set1_epi64x((long long)r4[0]), q1 = _mm256_set1_epi64x((long long)r4[1]);
        const __m256i q2 = _mm256_set1_epi64x((long long)r4[2]), q3 = _mm256_set1_epi64x((long long)r4[3]);
        const __m256i q4 = _mm256_set1_epi64x((long long)r4[4]);
        const __m256i t1 = _mm256_set1_epi64x((long long)(r4[1] * 5)), t2 = _mm256_set1_epi64x((long long)(r4[2] * 5));
        const __m256i t3 = _mm256_set1_epi64x((long long)(r4[3] * 5)), t4 = _mm256_set1_epi64x((long long)(r4[4] * 5));
        for (; count > 4; count -= 4, block += 64) {
            GALLERY_POLY_ADD_BLOCKS(block);
            GALLERY_POLY_MULTIPLY(h0, h1, h2, h3, h4, q0, q1, q2, q3, q4, t1, t2, t3, t4);
        }
    }
    // The last four blocks: lane j times r^(4 - j).
    {
        const __m256i q0 = _mm256_set_epi64x((long long)r[0], (long long)r2[0], (long long)r3[0], (long long)r4[0]);
        const __m256i q1 = _mm256_set_epi64x((long long)r[1], (long long)r2[1], (long long)r3[1], (long long)r4[1]);
        const __m256i q2 = _mm256_set_epi64x((long long)r[2], (long long)r2[2], (long long)r3[2], (long long)r4[2]);
        const __m256i q3 = _mm256_set_epi64x((long long)r[3], (long long)r2[3], (long long)r3[3], (long long)r4[3]);
        const __m256i q4 = _mm256_set_epi64x((long long)r[4], (long long)r2[4], (long long)r3[4], (long long)r4[4]);
        const __m256i five = _mm256_set1_epi64x(5);
        const __m256i t1 = _mm256_mul_epu32(q1, five), t2 = _mm256_mul_epu32(q2, five);
        const __m256i t3 = _mm256_mul_epu32(q3, five), t4 = _mm256_mul_epu32(q4, five);
        GALLERY_POLY_ADD_BLOCKS(block);
        GALLERY_POLY_MULTIPLY(h0, h1, h2, h3, h4, q0, q1, q2, q3, q4, t1, t2, t3, t4);
    }

    // The sum of the four lanes, carried as the scalar code leaves it.
    uint64_t lanes[5][4] __attribute__((aligned(32)));
    _mm256_store_si256((__m256i *)lanes[0], h0);
    _mm256_store_si256((__m256i *)lanes[1], h1);
    _mm256_store_si256((__m256i *)lanes[2], h2);
    _mm256_store_si256((__m256i *)lanes[3], h3);
    _mm256_store_si256((__m256i *)lanes[4], h4);
    uint64_t sum[5];
    for (int limb = 0; limb < 5; limb++) {
        sum[limb] = lanes[limb][0] + lanes[limb][1] + lanes[limb][2] + lanes[limb][3];
    }
    uint64_t c = sum[0] >> 26; sum[0] &= 0x3ffffff;
    sum[1] += c; c = sum[1] >> 26; sum[1] &= 0x3ffffff;
    sum[2] += c; c = sum[2] >> 26; sum[2] &= 0x3ffffff;
    sum[3] += c; c = sum[3] >> 26; sum[3] &= 0x3ffffff;
    sum[4] += c; c = sum[4] >> 26; sum[4] &= 0x3ffffff;
    sum[0] += c * 5; c = sum[0] >> 26; sum[0] &= 0x3ffffff;
    sum[1] += c;
    for (int limb = 0; limb < 5; limb++) h[limb] = sum[limb];
    // Leave no key material in the vector registers or on the stack.
    _mm256_zeroall();
    volatile uint64_t *wipe = &lanes[0][0];
    for (int index = 0; index < 20; index++) wipe[index] = 0;
    volatile uint64_t *wipePowers[3] = { r2, r3, r4 };
    for (int power = 0; power < 3; power++) for (int limb = 0; limb < 5; limb++) wipePowers[power][limb] = 0;
}

#endif
