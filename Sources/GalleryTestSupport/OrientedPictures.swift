/// Pictures that tell their orientation: four quadrants of plain colors (red top left, green top
/// right, blue bottom left, white bottom right, as stored), and the APP1 Exif segment a phone
/// writes to say how to turn them upright. The tests encode the pixels with the package's JPEG
/// encoder and tag the result here, then check where each color ends up once shown.
package enum OrientedPictures {
    /// RGB pixels (3 bytes each, rows top down) of the quadrant picture, `width` x `height`.
    package static func quadrants(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let color: [UInt8] = switch (x >= width / 2, y >= height / 2) {
                case (false, false): [255, 0, 0]
                case (true, false): [0, 255, 0]
                case (false, true): [0, 0, 255]
                case (true, true): [255, 255, 255]
                }
                let base = (y * width + x) * 3
                pixels[base] = color[0]
                pixels[base + 1] = color[1]
                pixels[base + 2] = color[2]
            }
        }
        return pixels
    }

    /// `jpeg` with an APP1 Exif segment right after its SOI marker declaring `orientation` (1-8):
    /// "Exif\0\0", a TIFF header in big-endian (`MM`) or little-endian (`II`) order, and IFD0 with
    /// the one Orientation entry (tag 0x0112, SHORT, one value).
    package static func tagged(_ jpeg: [UInt8], orientation: Int, bigEndian: Bool) -> [UInt8] {
        precondition(jpeg.starts(with: [0xFF, 0xD8]), "not a JPEG")
        func u16(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        func u32(_ value: Int) -> [UInt8] {
            bigEndian ? u16(value >> 16) + u16(value & 0xFFFF) : u16(value & 0xFFFF) + u16(value >> 16)
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8)                    // IFD0 right after the header
        tiff += u16(1)                              // one entry
        tiff += u16(0x0112) + u16(3) + u32(1)       // Orientation, SHORT, one value
        tiff += u16(orientation) + [0, 0]           // the value, inline, padded to 4 bytes
        tiff += u32(0)                              // no next IFD
        let body: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        return [0xFF, 0xD8] + segment + jpeg.dropFirst(2)
    }

    /// The size shown for a picture stored `width` x `height` under `orientation`: 5-8 swap the sides.
    package static func shownSize(width: Int, height: Int, orientation: Int) -> (width: Int, height: Int) {
        orientation >= 5 ? (height, width) : (width, height)
    }

    /// The colors of the shown picture's corners (top left, top right, bottom left, bottom right)
    /// under `orientation`, as "RGB" bits ("100" is red): where EXIF says the stored quadrants go.
    package static func shownCorners(orientation: Int) -> [String] {
        let table: [Int: [String]] = [
            1: ["100", "010", "001", "111"], 2: ["010", "100", "111", "001"],
            3: ["111", "001", "010", "100"], 4: ["001", "111", "100", "010"],
            5: ["100", "001", "010", "111"], 6: ["001", "100", "111", "010"],
            7: ["111", "010", "001", "100"], 8: ["010", "111", "100", "001"],
        ]
        return table[orientation] ?? []
    }

    /// The corners of RGB(A) `pixels` (`width` x `height`, `channels` per pixel) as "RGB" bits, each
    /// read `inset` pixels in from its corner, in the order of `shownCorners`.
    package static func corners(_ pixels: [UInt8], width: Int, height: Int, channels: Int, inset: Int = 4) -> [String] {
        let points = [(inset, inset), (width - 1 - inset, inset), (inset, height - 1 - inset), (width - 1 - inset, height - 1 - inset)]
        return points.map { x, y in
            let base = (y * width + x) * channels
            return String(pixels[base..<(base + 3)].map { $0 > 128 ? "1" : "0" })
        }
    }
}
