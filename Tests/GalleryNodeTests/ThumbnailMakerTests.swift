import Foundation
import GalleryCrypto
import GalleryHost
import GalleryImaging
import GalleryNode
import GalleryStorage
import Synchronization
import Testing

/// The node's `ThumbnailMaker` on real stores (`BlobStore`, `DerivedBlobStore`): both sizes from
/// one job, concurrent callers sharing it, and hostile pictures (truncated, 65535x65535 declared,
/// a decompression bomb's header, zero bytes, wrong magic, broken Huffman tables and zlib streams,
/// absurd EXIF offsets) answered with a reason, recorded, no thumbnail, within the memory bound.
@Suite("thumbnail maker: sizes, shared jobs, hostile pictures")
struct ThumbnailMakerTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-maker-\(UUID().uuidString)")

    private func stores() throws -> (BlobStore, DerivedBlobStore, ThumbnailMaker) {
        let blobs = try BlobStore(directory: directory)
        let derived = try DerivedBlobStore(directory: directory)
        return (blobs, derived, ThumbnailMaker(originals: blobs, derived: derived, width: 2, log: .silent))
    }

    /// Makes the thumbnails of `hash` and waits for the answer.
    private func make(_ maker: ThumbnailMaker, _ hash: String) -> Result<Void, ThumbnailFailure> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, ThumbnailFailure>>(.failure(.stopped))
        maker.make(hash) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 60) == .success, "no answer for \(hash.prefix(12))")
        return outcome.withLock { $0 }
    }

    static func jpeg(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            pixels[index * 3] = UInt8(truncatingIfNeeded: index % width)
            pixels[index * 3 + 1] = UInt8(truncatingIfNeeded: index / width)
            pixels[index * 3 + 2] = 90
        }
        return Array(JPEGEncoder.encode(RasterImage(width: width, height: height, channels: 3, pixels: pixels), quality: 85))
    }

    /// The offset of the first marker `0xFF kind` after SOI.
    static func marker(_ kind: UInt8, in bytes: [UInt8]) -> Int? {
        (2..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == kind }
    }

    /// A PNG of `width` x `height` RGB with the given zlib stream as its only IDAT.
    static func png(width: UInt32, height: UInt32, zlib: [UInt8]) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + body + withUnsafeBytes(of: CRC32.checksum(body).bigEndian, Array.init)
        }
        let header = withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// A zlib stream holding `data` in stored blocks.
    static func stored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let last: UInt8 = offset + count == data.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in data { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return out + withUnsafeBytes(of: (b << 16 | a).bigEndian, Array.init)
    }

    @Test("a JPEG gets both sizes (320, 1280, never enlarged), stored 0600; eight concurrent callers share one job")
    func sizesAndSharedJob() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (blobs, derived, maker) = try stores()
        let hash = try blobs.put(Self.jpeg(width: 1_600, height: 900))
        let answers = Mutex(0)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            DispatchQueue.global().async {
                maker.make(hash) { result in
                    if case .success = result { answers.withLock { $0 += 1 } }
                    group.leave()
                }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(answers.withLock { $0 } == 8)
        #expect(maker.counts.made == 1, "\(maker.counts)")
        for (size, expected) in [(320, (320, 180)), (1280, (1280, 720))] {
            let bytes = try #require(derived.thumbnail(of: hash, size: size))
            let image = try JPEGDecoder.decode(Data(bytes))
            #expect(image.width == expected.0 && image.height == expected.1)
            let path = directory.appendingPathComponent("blobs/derived/\(hash.prefix(2))/\(hash)-\(size).jpg").path
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }
        let small = try blobs.put(Self.jpeg(width: 100, height: 60))
        #expect((try? make(maker, small).get()) != nil)
        #expect(try JPEGDecoder.decode(Data(try #require(derived.thumbnail(of: small, size: 1280)))).width == 100)
    }

    @Test("hostile pictures: each answered with a reason, recorded, no thumbnail, the process alive and its peak memory within the bound")
    func hostile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let (blobs, derived, maker) = try stores()
        let good = Self.jpeg(width: 64, height: 48)
        let frame = try #require(Self.marker(0xC0, in: good))
        var huge = good
        huge.replaceSubrange((frame + 5)..<(frame + 9), with: [0xFF, 0xFF, 0xFF, 0xFF])
        let table = try #require(Self.marker(0xC4, in: good))
        var huffman = good
        // Sixteen counts of 255 codes each: an over-subscribed table.
        huffman.replaceSubrange((table + 5)..<(table + 21), with: [UInt8](repeating: 0xFF, count: 16))
        let validRows = (0..<16).flatMap { _ in [UInt8(0)] + [UInt8](repeating: 0x80, count: 48) }
        var badZlib = Self.stored(validRows)
        badZlib[2] = 0x07 // a block of the reserved type 3
        let hostile: [(String, [UInt8])] = [
            ("truncated", Array(good.prefix(good.count / 2))),
            ("65535x65535 JPEG", huge),
            ("65535x65535 PNG", Self.png(width: 65_535, height: 65_535, zlib: Self.stored(validRows))),
            ("bomb header 30000x30000", Self.png(width: 30_000, height: 30_000, zlib: Self.stored([UInt8](repeating: 0, count: 100_000)))),
            ("zero bytes", []),
            ("wrong magic", Array("GIF87a this is not a picture at all".utf8)),
            ("text", Array("hello".utf8)),
            ("bad Huffman table", huffman),
            ("bad zlib stream", Self.png(width: 48, height: 16, zlib: badZlib)),
        ]
        let peakBefore = Self.peakResidentBytes()
        for (name, bytes) in hostile {
            let hash = try blobs.put(bytes)
            let result = make(maker, hash)
            guard case .failure(.undecodable(let reason)) = result else {
                Issue.record("\(name): \(result)")
                continue
            }
            #expect(!reason.isEmpty, "\(name)")
            #expect(derived.failure(of: hash) == reason, "\(name): the reason is not recorded")
            #expect(!derived.hasThumbnail(of: hash, size: 320) && !derived.hasThumbnail(of: hash, size: 1280), "\(name)")
            // Asked again: the recorded reason, at once, no second decode.
            guard case .failure(.undecodable(let again)) = make(maker, hash) else { Issue.record("\(name): not refused again"); continue }
            #expect(again == reason)
        }
        #expect(maker.counts.failed == hostile.count, "\(maker.counts)")
        // The bound: no hostile header allocates its declared raster (65535^2 x 3 is 12 GiB).
        #expect(Self.peakResidentBytes() - peakBefore < 300 << 20, "peak grew by \((Self.peakResidentBytes() - peakBefore) >> 20) MiB")

        // Absurd EXIF offsets are ignored: the picture is still made, upright as stored.
        var exif: [UInt8] = Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 0x2A, 0xFF, 0xFF, 0xFF, 0xF0] + [UInt8](repeating: 0xFF, count: 12)
        exif = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
        let absurd = [good[0], good[1]] + exif + Array(good.dropFirst(2))
        let hash = try blobs.put(absurd)
        #expect((try? make(maker, hash).get()) != nil)
        #expect(try JPEGDecoder.decode(Data(try #require(derived.thumbnail(of: hash, size: 320)))).width == 64)
    }

    static func peakResidentBytes() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
