import Foundation
import GalleryCrypto
@testable import GalleryStorage
import GalleryTestSupport
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `gallery add`'s copies: files of 64 KiB and more go to the device with direct I/O except their
/// first page (kept in the page cache for the node's header read) and their partial last page, and
/// nothing of any file is left unwritten when `install` returns. The page-cache state of each file
/// is read with Linux's `cachestat(2)` (6.5 and later); where it is missing those checks are
/// skipped, and the test says so.
@Suite("Import: direct writes from 64 KiB, nothing dirty after install")
struct BlobImporterWritebackTests {
    /// Pages of a file: in the page cache, dirty (not yet sent to the device), under writeback.
    private struct PageState {
        var cached: UInt64
        var dirty: UInt64
        var writeback: UInt64
    }

    /// The page-cache state of the first `length` bytes of the file at `path` (all of it: 0), by
    /// `cachestat` (system call 451 on Linux), or nil where the kernel has no such call.
    private func pageState(_ path: String, length: UInt64 = 0) -> PageState? {
        #if os(Linux)
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall") else { return nil }
        typealias Call = @convention(c) (Int, Int32, UnsafeRawPointer, UnsafeMutableRawPointer, UInt32) -> Int
        let call = unsafeBitCast(symbol, to: Call.self)
        let range: [UInt64] = [0, length]
        var state = [UInt64](repeating: 0, count: 5)
        let result = range.withUnsafeBytes { range in state.withUnsafeMutableBytes { call(451, fd, range.baseAddress!, $0.baseAddress!, 0) } }
        guard result == 0 else { return nil }
        return PageState(cached: state[0], dirty: state[1], writeback: state[2])
        #else
        return nil
        #endif
    }

    @Test("From 64 KiB a copy leaves at most its first and last pages dirty, the first one cached; install leaves every blob clean and in place")
    func directWritesAndInstall() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            let importer = BlobImporter(store: store)
            let buffer = BlobImporter.Buffer()
            var sources: [[UInt8]] = []
            var batch: [BlobImporter.Stored] = []
            var checked = false
            // Small (buffered), the side-by-side's 100 KiB (whole pages), not a whole number of pages,
            // and large (`DirectAppender`).
            for (index, size) in [4_096, 102_400, 150_001, 3 << 20].enumerated() {
                let bytes = StorageFixtures.randomBytes(size, seed: UInt64(40 + index))
                let path = dir.appendingPathComponent("source-\(index)").path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                guard case .stored(let stored) = try importer.store(path, buffer: buffer, inspect: { _ in nil }) else {
                    Issue.record("source-\(index) not stored")
                    continue
                }
                #expect(stored.hash == SHA256.hex(SHA256.hash(bytes)) && stored.size == size)
                if size >= BlobImporter.directFrom, size < BlobImporter.bufferLength,
                   let state = pageState(stored.temporary), let first = pageState(stored.temporary, length: 4_096) {
                    checked = true
                    // Buffered, the 100 KiB file would leave 25 pages dirty (unless another process
                    // synced the file system meanwhile: then this passes without proving anything).
                    #expect(state.dirty <= 2, "\(size) bytes stored with \(state.dirty) dirty pages: not written directly")
                    #expect(first.cached == 1, "\(size) bytes: the first page is not in the page cache")
                }
                sources.append(bytes)
                batch.append(stored)
            }
            try importer.install(batch)
            for (stored, bytes) in zip(batch, sources) {
                let path = dir.appendingPathComponent("node/blobs/\(stored.hash.prefix(2))/\(stored.hash)").path
                #expect(try StorageFixtures.contents(URL(fileURLWithPath: path)) == bytes)
                if let state = pageState(path) {
                    #expect(state.dirty == 0 && state.writeback == 0, "\(stored.size) bytes: \(state) after install")
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("node/blobs/tmp").path).isEmpty)
            if !checked { print("BlobImporterWritebackTests: no cachestat(2) here; page states not checked") }
        }
    }
}
