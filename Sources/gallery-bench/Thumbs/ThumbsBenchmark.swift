import Dispatch
import Foundation
import GalleryImaging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `gallery-bench thumbs [--images 8] [--size 320]`: thumbnails of generated 6000x4000 JPEGs with
/// our `Thumbnailer` on one core and on all cores, then the same files through `vipsthumbnail` and
/// ImageMagick (`convert -thumbnail`, with and without `-define jpeg:size=`) when installed.
/// One JSON line each: images per second by wall clock, and by CPU time (which a shared machine
/// inflates less).
enum ThumbsBenchmark {
    static func run(_ arguments: [String]) throws -> [String] {
        var images = 8, size = 320
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchFailure.usage("thumbs: \(flag) needs a positive number") }
            switch flag {
            case "--images": images = value
            case "--size": size = value
            default: throw BenchFailure.usage("thumbs: unknown option \(flag)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-thumbs-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two distinct pictures, written `images` times: a generated 24 MP photo costs seconds to make.
        let pictures = (0..<min(images, 2)).map { JPEGEncoder.encode(syntheticPhoto(width: 6000, height: 4000, seed: UInt64($0 + 1)), quality: 90) }
        var paths: [String] = []
        for index in 0..<images {
            let url = directory.appendingPathComponent("photo-\(index).jpg")
            try pictures[index % pictures.count].write(to: url)
            paths.append(url.path)
        }
        let inputs = paths.map { FileManager.default.contents(atPath: $0) ?? Data() }
        var lines: [String] = []

        let cpuStart = processCPU()
        let single = try Stopwatch.time {
            for data in inputs { _ = try Thumbnailer.thumbnail(of: data, longEdge: size) }
        }
        lines.append(line("gallery-one-core", images, single.seconds, cpu: processCPU() - cpuStart))

        let longEdge = size
        let cpuStartAll = processCPU()
        let failures = Mutex(0)
        let all = Stopwatch.time {
            DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
                if (try? Thumbnailer.thumbnail(of: inputs[index], longEdge: longEdge)) == nil { failures.withLock { $0 += 1 } }
            }
        }
        guard failures.withLock({ $0 }) == 0 else { throw BenchFailure.failed("thumbs: a thumbnail failed") }
        lines.append(line("gallery-all-cores", images, all.seconds, cpu: processCPU() - cpuStartAll, extra: ["cores": Double(ProcessInfo.processInfo.activeProcessorCount)]))

        let output = directory.appendingPathComponent("out.jpg").path
        if let vips = try? ExternalHashTools.executablePath("vipsthumbnail") {
            lines.append(try external("vipsthumbnail-per-file", images) {
                for path in paths { _ = try ExternalHashTools.runToEnd(vips, [path, "-s", "\(size)", "-o", output]) }
            })
            lines.append(try external("vipsthumbnail-one-process", images) {
                _ = try ExternalHashTools.runToEnd(vips, paths + ["-s", "\(size)", "-o", directory.path + "/%s-thumb.jpg"])
            })
        }
        if let convert = imageMagickConvert() {
            lines.append(try external("convert-thumbnail", images) {
                for path in paths { _ = try ExternalHashTools.runToEnd(convert, [path, "-thumbnail", "\(size)x\(size)", output]) }
            })
            lines.append(try external("convert-thumbnail-jpeg-size", images) {
                for path in paths {
                    _ = try ExternalHashTools.runToEnd(convert, ["-define", "jpeg:size=\(2 * size)x\(2 * size)", path, "-thumbnail", "\(size)x\(size)", output])
                }
            })
        }
        return lines
    }

    /// The first `convert` on PATH that is ImageMagick's own program: a stand-in script that may
    /// come first (and would add an interpreter's start to every call) is passed over.
    static func imageMagickConvert() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/convert"
            guard FileManager.default.isExecutableFile(atPath: candidate),
                  FileHandle(forReadingAtPath: candidate).map({ handle in
                      defer { try? handle.close() }
                      return (try? handle.read(upToCount: 2)) != Data("#!".utf8)
                  }) == true,
                  let version = try? ExternalHashTools.runToEnd(candidate, ["-version"]),
                  String(decoding: version, as: UTF8.self).contains("Version: ImageMagick") else { continue }
            return candidate
        }
        return nil
    }

    static func line(_ name: String, _ images: Int, _ seconds: Double, cpu: Double, extra: [String: Double] = [:]) -> String {
        var result = ResultLine(workload: "thumbs-\(name)", ops: images, seconds: seconds, bytes: nil, peakRSSBytes: MemoryUsage.peakResidentBytes())
        result.extra = [("imagesPerCPUSecond", cpu > 0 ? Double(images) / cpu : nil)] + extra.map { ($0.key, $0.value) }
        return result.json
    }

    /// Times children: wall clock, and their CPU time from getrusage(RUSAGE_CHILDREN).
    static func external(_ name: String, _ images: Int, _ body: () throws -> Void) throws -> String {
        let before = childrenCPU()
        let timed = try Stopwatch.time { try body() }
        return line(name, images, timed.seconds, cpu: childrenCPU() - before)
    }

    static func childrenCPU() -> Double { cpuSeconds(__rusage_who_t(RUSAGE_CHILDREN.rawValue)) }

    static func processCPU() -> Double { cpuSeconds(__rusage_who_t(RUSAGE_SELF.rawValue)) }

    static func cpuSeconds(_ who: __rusage_who_t) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// A photo-like picture: smooth colour gradients, a few sharp discs and some noise, so the
    /// JPEG has the coefficient statistics of a real photo rather than of a flat test card.
    static func syntheticPhoto(width: Int, height: Int, seed: UInt64) -> RasterImage {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func random() -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state
        }
        let discs = (0..<24).map { _ in
            (x: Int(random() % UInt64(width)), y: Int(random() % UInt64(height)), r: Int(random() % 600) + 40,
             color: (Int(random() % 256), Int(random() % 256), Int(random() % 256)))
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                for x in 0..<width {
                    let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                    var r = 120 + 90 * sin(fx * 7 + fy * 3), g = 110 + 80 * sin(fy * 9 - fx * 2), b = 100 + 70 * cos((fx + fy) * 5)
                    for disc in discs where abs(disc.x - x) < disc.r && abs(disc.y - y) < disc.r {
                        let dx = disc.x - x, dy = disc.y - y
                        if dx * dx + dy * dy < disc.r * disc.r {
                            r = (r + Double(disc.color.0)) / 2; g = (g + Double(disc.color.1)) / 2; b = (b + Double(disc.color.2)) / 2
                        }
                    }
                    let noise = Double(Int(random() & 15) - 8)
                    let i = (y * width + x) * 3
                    out[i] = UInt8(max(0, min(255, r + noise)))
                    out[i + 1] = UInt8(max(0, min(255, g + noise)))
                    out[i + 2] = UInt8(max(0, min(255, b + noise)))
                }
            }
        }
        return RasterImage(width: width, height: height, channels: 3, pixels: pixels)
    }
}
