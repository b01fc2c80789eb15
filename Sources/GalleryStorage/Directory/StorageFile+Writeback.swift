import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Writeback started early: many files written without an fsync of their own, made durable
/// together by one `syncfs` later, have their pages sent to the device while the next files are
/// still being read, rather than all at once when the `syncfs` comes.
extension StorageFile {
    /// Starts writing back the first `length` bytes of the file's dirty pages and returns at once
    /// (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`). Not a durability step: the bytes
    /// and the file's metadata are durable only after an fsync or a `syncfs`. Nothing where the
    /// call is missing, and a failure is ignored (the later sync reports real errors).
    func startWriteback(length: Int) {
        guard length > 0, let syncFileRange = Self.syncFileRange else { return }
        _ = syncFileRange(fd, 0, off_t(length), Self.writeFlag)
    }

    /// `SYNC_FILE_RANGE_WRITE` of `<fcntl.h>`.
    private static let writeFlag: UInt32 = 2

    /// Linux's `sync_file_range(2)`, looked up at run time: the Glibc module does not export it (it
    /// needs `_GNU_SOURCE`); nil elsewhere.
    private static let syncFileRange: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32)? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "sync_file_range") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, off_t, off_t, UInt32) -> Int32).self)
        #else
        return nil
        #endif
    }()
}
