/// Block compression for SHA-256 with the CPU's SHA instructions (x86-64 SHA extensions, ARMv8
/// SHA-2), and the run-time check of whether this CPU has them. Everything else about SHA-256
/// (padding, buffering, the API) is Swift, in GalleryWire's `SHA256`.
#ifndef CSHA256_KERNELS_H
#define CSHA256_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Which instruction set `gallery_sha256_compress_accelerated` uses on this CPU.
typedef enum {
    /// Neither: `gallery_sha256_compress_accelerated` must not be called.
    GALLERY_SHA256_ACCELERATION_NONE = 0,
    /// x86-64 SHA extensions (SHA256RNDS2, SHA256MSG1, SHA256MSG2) with SSE4.1 and SSSE3.
    GALLERY_SHA256_ACCELERATION_X86_SHA = 1,
    /// ARMv8 Cryptography Extension SHA-2 (SHA256H, SHA256H2, SHA256SU0, SHA256SU1).
    GALLERY_SHA256_ACCELERATION_ARM_SHA2 = 2,
} gallery_sha256_acceleration;

/// The SHA instructions this CPU (and OS) offers, from CPUID or the auxiliary vector (asked anew on
/// every call: the caller keeps the answer).
gallery_sha256_acceleration gallery_sha256_acceleration_available(void);

/// Runs the SHA-256 compression function over `count` consecutive 64-byte blocks at `blocks`
/// (any alignment), updating the eight working words `state` (H0...H7, native byte order).
///
/// Call only when `gallery_sha256_acceleration_available()` is not NONE: on another CPU it would
/// execute instructions the CPU does not have (on an architecture with no kernel it does nothing).
void gallery_sha256_compress_accelerated(uint32_t state[8], const void *blocks, size_t count);

#endif
