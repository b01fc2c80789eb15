/// ChaCha20 (RFC 8439) keystream XOR eight blocks at a time with AVX2, and the run-time check of
/// whether this CPU and OS can run it. Everything else about ChaCha20 and the AEAD (the API, the
/// portable code, Poly1305) is Swift, in GalleryCrypto's `ChaCha20`.
#ifndef CCHACHA20_KERNELS_H
#define CCHACHA20_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which wide kernel `gallery_chacha20_xor_accelerated` uses on this CPU.
typedef enum {
    /// None: `gallery_chacha20_xor_accelerated` must not be called.
    GALLERY_CHACHA20_ACCELERATION_NONE = 0,
    /// x86-64 AVX2 (eight blocks in the eight 32-bit lanes of YMM registers), with the OS saving
    /// the YMM state (XGETBV).
    GALLERY_CHACHA20_ACCELERATION_X86_AVX2 = 1,
} gallery_chacha20_acceleration;

/// The wide kernel this CPU and OS offer, from CPUID and XGETBV (asked anew on every call: the
/// caller keeps the answer).
gallery_chacha20_acceleration gallery_chacha20_acceleration_available(void);

/// Writes `length` bytes: `input` XOR the ChaCha20 keystream under `key` (state words 4-11) and
/// `nonce` (words 13-15), from block `counter` on (word 12, wrapping modulo 2^32 as the portable
/// code does; the caller has checked the range). `output` may be the same memory as `input`
/// (not otherwise overlapping); any alignment, any length.
///
/// Constant time: no branch or memory index depends on the key, the nonce, the counter or the data;
/// the loops depend only on `length`.
///
/// Call only when `gallery_chacha20_acceleration_available()` is not NONE: on another CPU it would
/// execute instructions the CPU does not have (on an architecture with no kernel it does nothing).
void gallery_chacha20_xor_accelerated(const uint32_t key[8], const uint32_t nonce[3], uint32_t counter,
                                      const void *input, void *output, size_t length);

#endif
