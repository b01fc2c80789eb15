// The body of the eight-block ChaCha20 kernels (RFC 8439 sections 2.3 and 2.4), included by each
// kernel's file after it defines GALLERY_CHACHA20_TARGET (the target attribute), GALLERY_CHACHA20_FUNCTION
// (the entry point's name) and the rotations GALLERY_ROTL16, GALLERY_ROTL8 and GALLERY_ROTL(v, n).
// State word i of the eight blocks sits in the eight 32-bit lanes of vector x[i] (lane j = block
// counter + j), the twenty rounds run on whole vectors, and an 8 x 8 transpose turns lanes back
// into blocks.
#include <immintrin.h>


/// The quarter round on vectors a, b, c, d (RFC 8439 section 2.1), eight blocks at once.
#define GALLERY_QUARTER_ROUND(a, b, c, d)                                        \
    do {                                                                          \
        a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a); d = GALLERY_ROTL16(d); \
        c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = GALLERY_ROTL(b, 12); \
        a = _mm256_add_epi32(a, b); d = _mm256_xor_si256(d, a); d = GALLERY_ROTL8(d); \
        c = _mm256_add_epi32(c, d); b = _mm256_xor_si256(b, c); b = GALLERY_ROTL(b, 7); \
    } while (0)

/// Transposes eight vectors of eight words (v[i] lane j = word i of block j) so that out[j] holds
/// words 0...7 of block j (v[0...7]) or 8...15 (v[8...15]).
__attribute__((target(GALLERY_CHACHA20_TARGET), always_inline))
static inline void gallery_chacha20_transpose8(const __m256i v[8], __m256i out[8]) {
    const __m256i t0 = _mm256_unpacklo_epi32(v[0], v[1]), t1 = _mm256_unpackhi_epi32(v[0], v[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(v[2], v[3]), t3 = _mm256_unpackhi_epi32(v[2], v[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(v[4], v[5]), t5 = _mm256_unpackhi_epi32(v[4], v[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(v[6], v[7]), t7 = _mm256_unpackhi_epi32(v[6], v[7]);
    // u0: words (0,1,2,3) of blocks 0 and 4 (low and high 128 bits); u1 of blocks 1 and 5; ...
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    out[0] = _mm256_permute2x128_si256(u0, u4, 0x20);
    out[4] = _mm256_permute2x128_si256(u0, u4, 0x31);
    out[1] = _mm256_permute2x128_si256(u1, u5, 0x20);
    out[5] = _mm256_permute2x128_si256(u1, u5, 0x31);
    out[2] = _mm256_permute2x128_si256(u2, u6, 0x20);
    out[6] = _mm256_permute2x128_si256(u2, u6, 0x31);
    out[3] = _mm256_permute2x128_si256(u3, u7, 0x20);
    out[7] = _mm256_permute2x128_si256(u3, u7, 0x31);
}

/// Eight keystream blocks from block `counter` (a vector of the eight counters): `blocks[2j]` and
/// `blocks[2j + 1]` are the two 32-byte halves of block j.
__attribute__((target(GALLERY_CHACHA20_TARGET), always_inline))
static inline void gallery_chacha20_blocks8(const __m256i initial[16], __m256i blocks[16]) {
    const __m256i rotate16 = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,
                                             13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);
    const __m256i rotate8 = _mm256_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3,
                                            14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);
    (void)rotate16; /* unused where the rotations are instructions */
    (void)rotate8;
    __m256i x0 = initial[0], x1 = initial[1], x2 = initial[2], x3 = initial[3];
    __m256i x4 = initial[4], x5 = initial[5], x6 = initial[6], x7 = initial[7];
    __m256i x8 = initial[8], x9 = initial[9], x10 = initial[10], x11 = initial[11];
    __m256i x12 = initial[12], x13 = initial[13], x14 = initial[14], x15 = initial[15];
    for (int round = 0; round < 10; round++) {
        GALLERY_QUARTER_ROUND(x0, x4, x8, x12);
        GALLERY_QUARTER_ROUND(x1, x5, x9, x13);
        GALLERY_QUARTER_ROUND(x2, x6, x10, x14);
        GALLERY_QUARTER_ROUND(x3, x7, x11, x15);
        GALLERY_QUARTER_ROUND(x0, x5, x10, x15);
        GALLERY_QUARTER_ROUND(x1, x6, x11, x12);
        GALLERY_QUARTER_ROUND(x2, x7, x8, x13);
        GALLERY_QUARTER_ROUND(x3, x4, x9, x14);
    }
    const __m256i low[8] = {
        _mm256_add_epi32(x0, initial[0]), _mm256_add_epi32(x1, initial[1]),
        _mm256_add_epi32(x2, initial[2]), _mm256_add_epi32(x3, initial[3]),
        _mm256_add_epi32(x4, initial[4]), _mm256_add_epi32(x5, initial[5]),
        _mm256_add_epi32(x6, initial[6]), _mm256_add_epi32(x7, initial[7]),
    };
    const __m256i high[8] = {
        _mm256_add_epi32(x8, initial[8]), _mm256_add_epi32(x9, initial[9]),
        _mm256_add_epi32(x10, initial[10]), _mm256_add_epi32(x11, initial[11]),
        _mm256_add_epi32(x12, initial[12]), _mm256_add_epi32(x13, initial[13]),
        _mm256_add_epi32(x14, initial[14]), _mm256_add_epi32(x15, initial[15]),
    };
    __m256i lowBlocks[8], highBlocks[8];
    gallery_chacha20_transpose8(low, lowBlocks);
    gallery_chacha20_transpose8(high, highBlocks);
    for (int block = 0; block < 8; block++) {
        blocks[2 * block] = lowBlocks[block];
        blocks[2 * block + 1] = highBlocks[block];
    }
}

__attribute__((target(GALLERY_CHACHA20_TARGET)))
void GALLERY_CHACHA20_FUNCTION(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                               const void *input, void *output, size_t length) {
    const unsigned char *in = (const unsigned char *)input;
    unsigned char *out = (unsigned char *)output;
    __m256i initial[16];
    initial[0] = _mm256_set1_epi32(0x61707865);
    initial[1] = _mm256_set1_epi32(0x3320646e);
    initial[2] = _mm256_set1_epi32(0x79622d32);
    initial[3] = _mm256_set1_epi32(0x6b206574);
    for (int word = 0; word < 8; word++) initial[4 + word] = _mm256_set1_epi32((int)key[word]);
    // Lane j counts block counter + j; unsigned 32-bit lanes wrap as the portable code's &+.
    initial[12] = _mm256_add_epi32(_mm256_set1_epi32((int)counter), _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    initial[13] = _mm256_set1_epi32((int)nonce[0]);
    initial[14] = _mm256_set1_epi32((int)nonce[1]);
    initial[15] = _mm256_set1_epi32((int)nonce[2]);
    const __m256i eight = _mm256_set1_epi32(8);

    __m256i blocks[16];
    while (length >= 512) {
        gallery_chacha20_blocks8(initial, blocks);
        for (int half = 0; half < 16; half++) {
            const __m256i data = _mm256_loadu_si256((const __m256i *)(in + 32 * half));
            _mm256_storeu_si256((__m256i *)(out + 32 * half), _mm256_xor_si256(data, blocks[half]));
        }
        initial[12] = _mm256_add_epi32(initial[12], eight);
        in += 512;
        out += 512;
        length -= 512;
    }
    if (length > 0) {
        // The last 1...511 bytes: one more group of eight blocks, of which only `length` bytes are used.
        gallery_chacha20_blocks8(initial, blocks);
        unsigned char keystream[512] __attribute__((aligned(32)));
        for (int half = 0; half < 16; half++) _mm256_store_si256((__m256i *)(keystream + 32 * half), blocks[half]);
        size_t offset = 0;
        for (; offset + 32 <= length; offset += 32) {
            const __m256i data = _mm256_loadu_si256((const __m256i *)(in + offset));
            const __m256i stream = _mm256_load_si256((const __m256i *)(keystream + offset));
            _mm256_storeu_si256((__m256i *)(out + offset), _mm256_xor_si256(data, stream));
        }
        for (; offset < length; offset++) out[offset] = in[offset] ^ keystream[offset];
        // Leave no keystream on the stack.
        volatile unsigned char *wipe = keystream;
        for (size_t index = 0; index < sizeof keystream; index++) wipe[index] = 0;
    }
    // Leave no key material in the vector registers either.
    _mm256_zeroall();
}
