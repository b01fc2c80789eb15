import Foundation
import GalleryIO

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Appends bytes to a file through one aligned staging buffer, written with direct I/O
/// (`O_DIRECT`) a whole number of blocks at a time, so that a blob's bytes go from this buffer to
/// the device without passing through the page cache.
///
/// Why: on the VMs this project runs on, a buffered write into pages the file never had costs far
/// more than the copy (the guest's fresh page-cache pages are first touched there): 0.4-1 GB/s
/// buffered against 1.4-2.1 GB/s direct for the same 256 MiB (BENCHMARKS.md, "Transfer"). The
/// staging buffer is filled by the caller's bytes (one copy) or read into directly
/// (`append(reading:)`, no copy), and always starts at a block boundary of the file; the partial
/// block at the end is written without direct I/O by `flush()` and kept staged, so that the next
/// direct write rewrites it whole. Where direct I/O is refused (`EINVAL`: tmpfs, some file systems,
/// Darwin) every write is buffered, with the same bytes.
///
/// Not thread-safe: its owner serializes calls (`BlobWriter`'s lock, or one thread).
final class DirectAppender {
    /// The alignment of direct writes: offsets, lengths and the buffer's address.
    static let blockSize = 4_096
    /// The largest staging buffer: the size of most direct writes of a large blob. 1 MiB, not
    /// more: a direct write holds the device queue for its whole length, and an op log's fsync
    /// waits behind it. On the VM of BENCHMARKS.md, an fsync of a small append while 4 MiB direct
    /// writes stream took 2.3 ms at the median (0.24 ms idle), while 1 MiB ones left it at 0.23 ms;
    /// 1 MiB direct writes still reach 2.0 GB/s (4 MiB: 2.8), far above a transfer's rate.
    static let stagingLength = 1 << 20

    let file: StorageFile
    /// The staging buffer, made at the first byte staged: a writer opened for a download still
    /// waiting for its turn holds no memory.
    private var buffer: UnsafeMutableRawBufferPointer?
    /// The staging buffer's size.
    private let capacity: Int
    /// The file offset of the staging buffer's first byte, a multiple of `blockSize`.
    private var base: Int
    /// Bytes staged.
    private var staged = 0
    /// Whether the descriptor has `O_DIRECT` set now.
    private var directOn = false
    /// Whether direct writes may be tried (false once one was refused).
    private var directWorks: Bool

    /// An appender continuing `file` after its first `length` bytes: the partial block at the end
    /// is read back into the staging buffer, whose size fits `expectedLength` (the whole file's,
    /// when known) up to `stagingLength`, so that many small blobs in flight hold little memory.
    init(file: StorageFile, length: Int, expectedLength: Int? = nil) throws(StorageError) {
        self.file = file
        let wanted = min(Self.stagingLength, max(Self.blockSize, (expectedLength ?? Self.stagingLength) + Self.blockSize - 1))
        capacity = wanted - wanted % Self.blockSize
        base = length - length % Self.blockSize
        directWorks = Self.directFlag != 0 && ProcessInfo.processInfo.environment["GALLERY_BUFFERED_BLOBS"] == nil
        let tail = length - base
        if tail > 0 {
            let read: Int
            do throws(StorageError) {
                read = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: staging[0..<tail]), at: base)
            } catch {
                // Freed here and forgotten: `deinit` may run for the abandoned instance too.
                buffer?.deallocate()
                buffer = nil
                throw error
            }
            staged = read
        }
    }

    deinit {
        buffer?.deallocate()
    }

    /// The staging buffer, made on first use.
    private var staging: UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let made = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: Self.blockSize)
        buffer = made
        return made
    }

    /// Bytes appended so far, counting those the file held at creation.
    var count: Int { base + staged }

    /// Appends `bytes` (copied into the staging buffer; whole blocks are written as it fills).
    func append(_ bytes: UnsafeRawBufferPointer) throws(StorageError) {
        var offset = 0
        while offset < bytes.count {
            if staged == staging.count { try writeBlocks() }
            let length = min(bytes.count - offset, staging.count - staged)
            (staging.baseAddress! + staged).copyMemory(from: bytes.baseAddress! + offset, byteCount: length)
            staged += length
            offset += length
        }
        if staged == staging.count { try writeBlocks() }
    }

    /// Lets `read` fill the free part of the staging buffer directly (at most `maximum` bytes) and
    /// returns what it read, valid until the next call; empty at the end of the input.
    func append(
        reading read: (UnsafeMutableRawBufferPointer) throws(StorageError) -> Int, maximum: Int = .max
    ) throws(StorageError) -> UnsafeRawBufferPointer {
        if staged == staging.count { try writeBlocks() }
        let free = UnsafeMutableRawBufferPointer(rebasing: staging[staged..<staged + min(staging.count - staged, maximum)])
        let length = try read(free)
        let filled = UnsafeRawBufferPointer(rebasing: staging[staged..<staged + length])
        staged += length
        return filled
    }

    /// Writes every staged byte to the file: whole blocks directly, the partial block at the end
    /// buffered (it stays staged).
    func flush() throws(StorageError) {
        try writeBlocks()
        if staged > 0 { try write(0..<staged, direct: false) }
    }

    /// Writes the whole blocks staged and moves the partial block to the buffer's start.
    private func writeBlocks() throws(StorageError) {
        let whole = staged - staged % Self.blockSize
        guard whole > 0 else { return }
        try write(0..<whole, direct: true)
        let tail = staged - whole
        if tail > 0 { staging.baseAddress!.copyMemory(from: staging.baseAddress! + whole, byteCount: tail) }
        base += whole
        staged = tail
    }

    /// Writes staged bytes at their file offset, directly when `direct` and allowed.
    private func write(_ range: Range<Int>, direct: Bool) throws(StorageError) {
        let bytes = UnsafeRawBufferPointer(rebasing: staging[range])
        let useDirect = direct && directWorks && setDirect(true)
        if !useDirect { _ = setDirect(false) }
        do {
            try file.write(bytes, at: base + range.lowerBound)
        } catch .io(_, _, EINVAL) where useDirect {
            // This file system refuses direct I/O: write buffered from now on.
            directWorks = false
            _ = setDirect(false)
            try file.write(bytes, at: base + range.lowerBound)
        }
    }

    /// Turns `O_DIRECT` on or off for the descriptor; false when it cannot be turned on.
    private func setDirect(_ on: Bool) -> Bool {
        guard on != directOn else { return true }
        guard Self.directFlag != 0 else { return !on }
        let flags = fcntl(file.fd, F_GETFL)
        guard flags >= 0, fcntl(file.fd, F_SETFL, on ? flags | Self.directFlag : flags & ~Self.directFlag) == 0 else {
            if on { directWorks = false }
            return !on
        }
        directOn = on
        return true
    }

    /// Linux's `O_DIRECT`, which the Glibc module does not export (it depends on `_GNU_SOURCE`):
    /// its value differs by architecture; 0 where unknown or absent (Darwin), so no direct I/O.
    #if os(Linux) && arch(x86_64)
    static let directFlag: Int32 = 0o40000
    #elseif os(Linux) && arch(arm64)
    static let directFlag: Int32 = 0o200000
    #else
    static let directFlag: Int32 = 0
    #endif
}
