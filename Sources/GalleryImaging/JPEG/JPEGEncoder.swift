import Foundation

/// A baseline JPEG encoder for thumbnails: YCbCr 4:2:0 (or gray), Annex K tables scaled by a
/// libjpeg-style quality, the float AAN forward DCT. Alpha is composited over white, since JPEG
/// has none and thumbnails are shown on a light page.
package enum JPEGEncoder {
    /// Encodes `image` (1-4 channels) at `quality` 1-100.
    package static func encode(_ image: RasterImage, quality: Int = 82) -> Data {
        let gray = image.channels <= 2
        let lumaQuant = JPEGStandardTables.scaled(JPEGStandardTables.luminanceQuant, quality: quality)
        let chromaQuant = JPEGStandardTables.scaled(JPEGStandardTables.chrominanceQuant, quality: quality)
        var out: [UInt8] = []
        out.reserveCapacity(image.width * image.height / 2 + 1024)
        writeHeaders(&out, width: image.width, height: image.height, gray: gray, lumaQuant: lumaQuant, chromaQuant: chromaQuant)
        let planes = JPEGEncoderPlanes(image, subsample: !gray)
        var writer = JPEGBitWriter(out: out)
        var entropy = JPEGEntropyEncoder(lumaQuant: lumaQuant, chromaQuant: chromaQuant)
        entropy.encode(planes, gray: gray, into: &writer)
        writer.finish()
        var result = writer.out
        result += [0xFF, 0xD9]
        return Data(result)
    }

    static func writeHeaders(_ out: inout [UInt8], width: Int, height: Int, gray: Bool, lumaQuant: [Int], chromaQuant: [Int]) {
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)]
            out += body
        }
        out += [0xFF, 0xD8]
        // JFIF APP0: version 1.1, no density units, 1:1 aspect, no thumbnail.
        segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
        var dqt: [UInt8] = [0] + (0..<64).map { UInt8(lumaQuant[Int(JPEGZigzag.natural[$0])]) }
        if !gray { dqt += [1] + (0..<64).map { UInt8(chromaQuant[Int(JPEGZigzag.natural[$0])]) } }
        segment(0xDB, dqt)
        var sof: [UInt8] = [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)]
        sof += gray ? [1, 1, 0x11, 0] : [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
        segment(0xC0, sof)
        var dht: [UInt8] = []
        func table(_ id: UInt8, _ counts: [Int], _ symbols: [UInt8]) {
            dht += [id] + counts.map { UInt8($0) } + symbols
        }
        table(0x00, JPEGStandardTables.dcLuminanceCounts, JPEGStandardTables.dcSymbols)
        table(0x10, JPEGStandardTables.acLuminanceCounts, JPEGStandardTables.acLuminanceSymbols)
        if !gray {
            table(0x01, JPEGStandardTables.dcChrominanceCounts, JPEGStandardTables.dcSymbols)
            table(0x11, JPEGStandardTables.acChrominanceCounts, JPEGStandardTables.acChrominanceSymbols)
        }
        segment(0xC4, dht)
        segment(0xDA, gray ? [1, 1, 0x00, 0, 63, 0] : [3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0])
    }
}
