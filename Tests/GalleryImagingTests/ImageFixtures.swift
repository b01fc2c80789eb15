import Foundation
@testable import GalleryImaging

/// Fixture files next to this source file, reference decodes by libjpeg-turbo's `djpeg` when it is
/// installed, and the PSNR the comparisons use.
enum ImageFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// The color JPEG fixtures made by `cjpeg` from source.ppm (see Fixtures/README.md).
    static let colorJPEGs = [
        "baseline-420.jpg", "baseline-422.jpg", "baseline-444.jpg", "baseline-440.jpg", "baseline-411.jpg",
        "progressive-420.jpg", "progressive-444-restart.jpg", "baseline-restart.jpg", "rgb-adobe.jpg", "optimized.jpg",
    ]
    static let grayJPEGs = ["gray.jpg", "gray-progressive.jpg"]

    /// Parses a binary PPM (P6) or PGM (P5) with maxval 255.
    static func netpbm(_ data: Data) -> RasterImage? {
        let bytes = [UInt8](data)
        var fields: [Int] = [], position = 2
        guard bytes.count > 2, bytes[0] == 0x50, bytes[1] == 0x36 || bytes[1] == 0x35 else { return nil }
        while fields.count < 3, position < bytes.count {
            while position < bytes.count, bytes[position] == 0x20 || bytes[position] == 0x0A || bytes[position] == 0x0D || bytes[position] == 0x09 {
                position += 1
            }
            if position < bytes.count, bytes[position] == 0x23 {
                while position < bytes.count, bytes[position] != 0x0A { position += 1 }
                continue
            }
            var value = 0
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) {
                value = value * 10 + Int(bytes[position] - 0x30)
                position += 1
            }
            fields.append(value)
        }
        position += 1
        let channels = bytes[1] == 0x36 ? 3 : 1
        let count = fields[0] * fields[1] * channels
        guard fields.count == 3, fields[2] == 255, position + count <= bytes.count else { return nil }
        return RasterImage(width: fields[0], height: fields[1], channels: channels, pixels: Array(bytes[position..<(position + count)]))
    }

    static let djpegPath = "/usr/bin/djpeg"
    static var hasDjpeg: Bool { FileManager.default.isExecutableFile(atPath: djpegPath) }

    /// libjpeg-turbo's decode of a fixture at 1/`scale` (defaults: islow IDCT, fancy upsampling).
    static func djpeg(_ name: String, scale: Int = 1) throws -> RasterImage? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: djpegPath)
        process.arguments = ["-scale", "1/\(scale)", "-pnm", directory.appendingPathComponent(name).path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return netpbm(output)
    }

    /// Peak signal-to-noise ratio over all samples, in dB (infinity when identical).
    static func psnr(_ a: RasterImage, _ b: RasterImage) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        var sum = 0.0
        for i in a.pixels.indices {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
        }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// An area-average reduction by an integer factor (the edge blocks average what they have):
    /// the reference a scaled decode is compared with.
    static func boxReduce(_ image: RasterImage, by factor: Int) -> RasterImage {
        let w = (image.width + factor - 1) / factor, h = (image.height + factor - 1) / factor, n = image.channels
        var out = [UInt8](repeating: 0, count: w * h * n)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<n {
                    var sum = 0, count = 0
                    for sy in (y * factor)..<min((y + 1) * factor, image.height) {
                        for sx in (x * factor)..<min((x + 1) * factor, image.width) {
                            sum += Int(image.pixels[(sy * image.width + sx) * n + c])
                            count += 1
                        }
                    }
                    out[(y * w + x) * n + c] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return RasterImage(width: w, height: h, channels: n, pixels: out)
    }

    /// A gray copy of an RGB image (BT.601 weights), to compare gray decodes with the color source.
    static func gray(_ image: RasterImage) -> RasterImage {
        var out = [UInt8](repeating: 0, count: image.width * image.height)
        for i in out.indices {
            let r = Double(image.pixels[3 * i]), g = Double(image.pixels[3 * i + 1]), b = Double(image.pixels[3 * i + 2])
            out[i] = UInt8(min(255, max(0, (0.299 * r + 0.587 * g + 0.114 * b).rounded())))
        }
        return RasterImage(width: image.width, height: image.height, channels: 1, pixels: out)
    }
}
