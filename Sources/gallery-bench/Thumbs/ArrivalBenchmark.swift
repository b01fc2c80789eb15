import Dispatch
import Foundation
import GalleryHost
import GalleryImaging
import GalleryNode
import GalleryStorage

/// `gallery-bench thumbs-arrival [--images 8]`: what a node pays when pictures arrive: generated
/// 6000x4000 JPEGs (quality 90) stored in a blob store, then both thumbnails of each (320 and
/// 1280 px) made by the node's `ThumbnailMaker` into a `DerivedBlobStore`, as on arrival: first
/// with a pool of one thread, then with the node's pool (the cores, at most 4). One JSON line each
/// (images per second by wall clock and per CPU second), and one with the bytes a peer replicates
/// per item (both thumbnails), against the original's.
enum ArrivalBenchmark {
    static func run(_ arguments: [String]) throws -> [String] {
        var images = 8
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchFailure.usage("thumbs-arrival: \(flag) needs a positive number") }
            switch flag {
            case "--images": images = value
            default: throw BenchFailure.usage("thumbs-arrival: unknown option \(flag)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-arrival-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let blobs = try BlobStore(directory: directory)
        // Two distinct pictures; each copy gets its own hash from bytes after the end marker (ignored by decoders).
        let pictures = (0..<min(images, 2)).map {
            Array(JPEGEncoder.encode(ThumbsBenchmark.syntheticPhoto(width: 6000, height: 4000, seed: UInt64($0 + 1)), quality: 90))
        }
        var hashes: [String] = []
        var originalBytes = 0
        for index in 0..<images {
            let bytes = pictures[index % pictures.count] + Array("copy \(index)".utf8)
            hashes.append(try blobs.put(bytes))
            originalBytes += bytes.count
        }
        var lines: [String] = []
        var derivedBytes = 0
        var smallBytes = 0
        for (name, width) in [("one-core", 1), ("all-cores", min(4, ProcessInfo.processInfo.activeProcessorCount))] {
            let derivedDirectory = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: derivedDirectory, withIntermediateDirectories: true)
            let derived = try DerivedBlobStore(directory: derivedDirectory)
            let maker = ThumbnailMaker(originals: blobs, derived: derived, width: width, log: .silent)
            let group = DispatchGroup()
            let cpuStart = ThumbsBenchmark.processCPU()
            let timed = Stopwatch.time {
                for hash in hashes {
                    group.enter()
                    maker.make(hash) { _ in group.leave() }
                }
                group.wait()
            }
            guard maker.counts.made == images else { throw BenchFailure.failed("thumbs-arrival: \(images - maker.counts.made) pictures got no thumbnails") }
            lines.append(ThumbsBenchmark.line(
                "arrival-\(name)", images, timed.seconds, cpu: ThumbsBenchmark.processCPU() - cpuStart, extra: ["threads": Double(width)]))
            derivedBytes = derived.storedBytes()
            smallBytes = hashes.compactMap { derived.thumbnail(of: $0, size: ThumbnailSize.small.rawValue)?.count }.reduce(0, +)
        }
        var result = ResultLine(workload: "thumbs-arrival-bytes-per-item", ops: images, seconds: 0, bytes: derivedBytes, peakRSSBytes: MemoryUsage.peakResidentBytes())
        result.extra = [
            ("thumbnailBytesPerItem", Double(derivedBytes) / Double(images)),
            ("smallThumbnailBytesPerItem", Double(smallBytes) / Double(images)),
            ("originalBytesPerItem", Double(originalBytes) / Double(images)),
            ("percentOfOriginal", 100 * Double(derivedBytes) / Double(max(1, originalBytes))),
        ]
        lines.append(result.json)
        return lines
    }
}
