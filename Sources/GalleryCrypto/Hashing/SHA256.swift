import Foundation
internal import CSHA256Kernels

/// SHA-256 (FIPS 180-4), fed incrementally and finalized once into a 32-byte digest.
///
/// Whole 64-byte blocks are compressed straight from the caller's memory, all the blocks of one
/// `update` in one call of the kernel; only a partial block is copied into the hasher's fixed-size
/// buffer, so hashing allocates nothing but the digest. The compression function is the CPU's SHA
/// instructions where it has them (see `Kernel`), else portable Swift.
///
/// Constant time in the bytes hashed (no branch or table index depends on them, in either kernel),
/// so HMAC and HKDF on it are too; only the length steers the loops.
package struct SHA256: Sendable {
    /// The length of a digest in bytes (32).
    package static let byteCount = 32

    /// The length of a block in bytes (64).
    static let blockByteCount = 64

    /// The eight working hash words H0...H7, in memory order (the C kernels read them as `uint32_t[8]`).
    typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The compression function this hasher runs.
    package let kernel: Kernel

    /// The eight working hash words H0...H7.
    private var state: Words = (
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
        0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
    )
    /// The bytes of a partial block waiting for more input (the first `pendingCount` are valid).
    private var pending: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// How many bytes of `pending` are valid, 0..<64.
    private var pendingCount = 0
    /// The number of bytes hashed so far.
    private var totalCount: UInt64 = 0

    /// A hasher that has seen no bytes, using `SHA256.defaultKernel`.
    package init() {
        kernel = Self.defaultKernel
    }

    /// A hasher that has seen no bytes, using `kernel`; nil if this CPU cannot run it.
    package init?(kernel: Kernel) {
        guard kernel == .portable || kernel == Self.acceleratedKernel else { return nil }
        self.kernel = kernel
    }

    /// Feeds `bytes` to the hash.
    ///
    /// - Complexity: O(*n*) in the number of bytes, without allocation.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        totalCount &+= UInt64(remaining)
        if pendingCount > 0 {
            let end = pendingCount
            let taken = min(remaining, Self.blockByteCount - end)
            withUnsafeMutableBytes(of: &pending) { buffer in
                buffer.baseAddress!.advanced(by: end).copyMemory(from: source, byteCount: taken)
            }
            pendingCount += taken
            source += taken
            remaining -= taken
            guard pendingCount == Self.blockByteCount else { return }
            compressPending()
        }
        let blocks = remaining / Self.blockByteCount
        if blocks > 0 {
            Self.compress(&state, blocks: source, count: blocks, kernel: kernel)
            source += blocks * Self.blockByteCount
            remaining -= blocks * Self.blockByteCount
        }
        if remaining > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                buffer.baseAddress!.copyMemory(from: source, byteCount: remaining)
            }
            pendingCount = remaining
        }
    }

    /// Feeds `bytes` to the hash: `[UInt8]`, `ArraySlice<UInt8>`, `Data`, `String.UTF8View`, ...
    ///
    /// Contiguous collections are hashed in place; other sequences go through a small stack buffer.
    /// - Complexity: O(*n*) in the number of bytes.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            update(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { chunk in
            var count = 0
            for byte in bytes {
                chunk[count] = byte
                count += 1
                if count == chunk.count {
                    update(UnsafeRawBufferPointer(chunk))
                    count = 0
                }
            }
            update(UnsafeRawBufferPointer(start: chunk.baseAddress, count: count))
        }
    }

    /// Pads the message and returns its 32-byte digest.
    ///
    /// - Complexity: O(1).
    package consuming func finalize() -> [UInt8] {
        let bitLength = totalCount &* 8
        let end = pendingCount
        withUnsafeMutableBytes(of: &pending) { buffer in
            buffer[end] = 0x80
            for index in (end + 1)..<Self.blockByteCount { buffer[index] = 0 }
        }
        if pendingCount >= Self.blockByteCount - 8 {
            // No room for the length: it goes into one more block of zeros.
            compressPending()
            pending = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        pending.7 = bitLength.bigEndian
        compressPending()
        return [UInt8](unsafeUninitializedCapacity: Self.byteCount) { buffer, initializedCount in
            let digest = UnsafeMutableRawBufferPointer(buffer)
            withUnsafeBytes(of: state) { words in
                for offset in stride(from: 0, to: Self.byteCount, by: 4) {
                    let word = words.load(fromByteOffset: offset, as: UInt32.self)
                    digest.storeBytes(of: word.bigEndian, toByteOffset: offset, as: UInt32.self)
                }
            }
            initializedCount = Self.byteCount
        }
    }

    /// The SHA-256 digest of `bytes`.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The SHA-256 digest of `data`.
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hash(_ data: Data) -> [UInt8] {
        var hasher = SHA256()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The bytes that lowercase or uppercase hexadecimal `text` spells, two digits per byte; nil
    /// for an odd length or a character that is not a hex digit.
    ///
    /// - Complexity: O(*n*) in the length of `text`.
    package static func bytes(hex text: String) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// `bytes` as lowercase hexadecimal, two digits per byte (e.g. a digest as `sha256sum` prints it).
    ///
    /// - Complexity: O(*n*) in the number of bytes.
    package static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var index = 0
            for byte in bytes {
                buffer[index] = digits[Int(byte >> 4)]
                buffer[index + 1] = digits[Int(byte & 0x0f)]
                index += 2
            }
            return index
        }
    }

    // MARK: Compression

    /// Compresses the full 64-byte `pending` block and empties it.
    private mutating func compressPending() {
        withUnsafeBytes(of: &pending) { buffer in
            Self.compress(&state, blocks: buffer.baseAddress!, count: 1, kernel: kernel)
        }
        pendingCount = 0
    }

    /// Runs `kernel`'s compression function over `count` consecutive 64-byte blocks at `blocks`.
    ///
    /// - Complexity: O(`count`).
    @inline(__always)
    private static func compress(_ state: inout Words, blocks: UnsafeRawPointer, count: Int, kernel: Kernel) {
        switch kernel {
        case .portable:
            compressPortable(&state, blocks: blocks, count: count)
        case .x86SHAExtensions, .armSHA2:
            // Only reachable through `init`, which admits only the kernel this CPU has.
            withUnsafeMutableBytes(of: &state) { words in
                gallery_sha256_compress_accelerated(words.baseAddress!.assumingMemoryBound(to: UInt32.self), blocks, count)
            }
        }
    }
}
