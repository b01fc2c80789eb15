/// ChaCha20-Poly1305's two loops with AVX2: the ChaCha20 (RFC 8439) keystream XOR eight blocks at
/// a time, Poly1305's block loop four blocks at a time; and the run-time check of whether this CPU
/// and OS can run them. Everything else about ChaCha20, Poly1305 and the AEAD (the API, the portable
/// code, padding, the tag) is Swift, in GalleryCrypto.
#ifndef CCHACHAPOLY_KERNELS_H
#define CCHACHAPOLY_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which wide kernel `gallery_chacha20_xor_accelerated` uses on this CPU.
typedef enum {
    /// None: `gallery_chacha20_xor_accelerated` must not be called.
    GALLERY_CHACHA20_ACCELERATION_NONE = 0,
    /// x86-64 AVX2 (eight blocks in the eight 32-bit lanes of YMM registers), with the OS saving
    /// the YMM state (XGETBV).
    GALLERY_CHACHA20_ACCELERATION_X86_AVX2 = 1,
    /// x86-64 AVX2 with AVX-512F and AVX-512VL (the same eight lanes, with VPROLD for the
    /// rotations), with the OS saving the AVX-512 state too.
    GALLERY_CHACHA20_ACCELERATION_X86_AVX512VL = 2,
} gallery_chacha20_acceleration;

/// The best wide kernel this CPU and OS offer, from CPUID and XGETBV (asked anew on every call:
/// the caller keeps the answer). A CPU with AVX512VL runs the AVX2 kernel too.
gallery_chacha20_acceleration gallery_chacha20_acceleration_available(void);

/// Writes `length` bytes with the kernel `acceleration`: `input` XOR the ChaCha20 keystream under `key` (state words 4-11) and
/// `nonce` (words 13-15), from block `counter` on (word 12, wrapping modulo 2^32 as the portable
/// code does; the caller has checked the range). `output` may be the same memory as `input`
/// (not otherwise overlapping); any alignment, any length.
///
/// Constant time: no branch or memory index depends on the key, the nonce, the counter or the data;
/// the loops depend only on `length`.
///
/// Call only with a kernel `gallery_chacha20_acceleration_available()` admits: on another CPU it
/// would execute instructions the CPU does not have (with NONE, or on an architecture with no
/// kernel, it does nothing).
void gallery_chacha20_xor_accelerated(gallery_chacha20_acceleration acceleration, const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                                      const void *input, void *output, size_t length);

/// Absorbs `count` 16-byte blocks at `blocks` (any alignment; `count` a multiple of 4, at least 4)
/// into the Poly1305 accumulator `h` under the clamped key half `r`, both in five 26-bit limbs
/// (as GalleryCrypto's `Poly1305` keeps them): h = (h + block + 2^128) * r mod 2^130 - 5 for each
/// block in turn. `h` comes out carried as the one-block code leaves it (every limb below 2^26
/// but the second, below 2^26 + 2^6).
///
/// Constant time: no branch or memory index depends on the key, the accumulator or the data.
///
/// Call only when `gallery_chacha20_acceleration_available()` is not NONE (the same AVX2 check).
void gallery_poly1305_blocks_accelerated(uint64_t h[5], const uint64_t r[5], const void *blocks, size_t count);

#endif
