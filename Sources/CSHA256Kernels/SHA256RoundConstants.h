// Private to CSHA256Kernels: the round constants the kernels share.
#ifndef CSHA256_ROUND_CONSTANTS_H
#define CSHA256_ROUND_CONSTANTS_H

#include <stdint.h>

/// K0...K63 of FIPS 180-4, 16-byte aligned.
extern const uint32_t gallery_sha256_round_constants[64];

#endif
