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

/// `gallery add`'s copies on their way to the disk early, and none left in the page cache when
/// `install` returns: the page-cache state of each file read with Linux's `cachestat(2)` (6.5 and
/// later; the checks that need it are skipped where it is missing, and say so).
@Suite("Import: writeback started per file, nothing dirty after install")
struct BlobImporterWritebackTests {
    /// Pages of a file: in the page cache, dirty (not yet sent to the device), under writeback.
    private struct PageState {
        var cached: UInt64
        var dirty: UInt64
        var writeback: UInt64
    }

    /// The page-cache state of the file at `path` (`cachestat`, system call 451 on Linux), or nil
    /// where the kernel has no such call.
    private func pageState(_ path: String) -> PageState? {
        #if os(Linux)
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syscall") else { return nil }
        typealias Call = @convention(c) (Int, Int32, UnsafeRawPointer, UnsafeMutableRawPointer, UInt32) -> Int
        let call = unsafeBitCast(symbol, to: Call.self)
        let range: [UInt64] = [0, 0]  // offset 0, length 0: the whole file
        var state = [UInt64](repeating: 0, count: 5)
        let result = range.withUnsafeBytes { range in state.withUnsafeMutableBytes { call(451, fd, range.baseAddress!, $0.baseAddress!, 0) } }
        guard result == 0 else { return nil }
        return PageState(cached: state[0], dirty: state[1], writeback: state[2])
        #else
        return nil
        #endif
    }

    @Test("Each copy is sent to the device as it is stored (no page left dirty), and install leaves every blob clean and in place")
    func writebackAndInstall() throws {
        try StorageFixtures.withScratchDirectory { dir in
            let store = try BlobStore(directory: dir.appendingPathComponent("node"))
            let importer = BlobImporter(store: store)
            let buffer = BlobImporter.Buffer()
            var sources: [[UInt8]] = []
            var batch: [BlobImporter.Stored] = []
            // Small, medium (the side-by-side's 100 KiB), not a whole number of pages, and large.
            for (index, size) in [4_096, 102_400, 150_001, 3 << 20].enumerated() {
                let bytes = StorageFixtures.randomBytes(size, seed: UInt64(40 + index))
                let path = dir.appendingPathComponent("source-\(index)").path
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                guard case .stored(let stored) = try importer.store(path, buffer: buffer, inspect: { _ in nil }) else {
                    Issue.record("source-\(index) not stored")
                    continue
                }
                #expect(stored.hash == SHA256.hex(SHA256.hash(bytes)) && stored.size == size)
                if let state = pageState(stored.temporary) {
                    #expect(state.dirty == 0, "a copy of \(size) bytes left \(state.dirty) dirty pages: its writeback was not started")
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
        }
    }
}
