/// GIF's variable-length LZW: codes LSB-first, starting at minimum code size + 1 bits and growing to
/// 12; a clear code resets the table, the end code stops; once the table holds 4096 entries it stays
/// full (a "deferred clear") until the encoder clears it.
enum GIFLZWDecoder {
    /// Decodes `pixels` color indices from `data`.
    /// - Throws: `.malformed` for a code past the table (or a string code right after a clear);
    ///   `.truncated` when the codes end before `pixels` indices.
    static func decode(_ data: [UInt8], minimumCodeSize: Int, pixels: Int) throws(ImageError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: pixels)
        guard pixels > 0 else { return output }
        let clear = 1 << minimumCodeSize, end = clear + 1
        // Each code's string: the code before it (prefix), its last byte (suffix), its first byte and length.
        var prefix = [UInt16](repeating: 0, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        var length = [UInt16](repeating: 0, count: 4096)
        for code in 0..<min(clear, 4096) {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
            length[code] = 1
        }
        var codeSize = minimumCodeSize + 1
        var next = end + 1
        var previous = -1
        var written = 0
        var accumulator = 0, bits = 0, position = 0
        while written < pixels {
            while bits < codeSize && position < data.count {
                accumulator |= Int(data[position]) << bits
                position += 1
                bits += 8
            }
            guard bits >= codeSize else { break }
            let code = accumulator & ((1 << codeSize) - 1)
            accumulator >>= codeSize
            bits -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = end + 1
                previous = -1
                continue
            }
            if code == end { break }
            if previous < 0 {
                guard code < clear else { throw .malformed("GIF LZW code \(code) with an empty table") }
                output[written] = UInt8(truncatingIfNeeded: code)
                written += 1
                previous = code
                continue
            }
            // A code one past the table is KwKwK: the previous string plus its own first byte.
            guard code <= next, code < 4096 else { throw .malformed("GIF LZW code \(code) past the table's \(next)") }
            if next < 4096 {
                prefix[next] = UInt16(previous)
                suffix[next] = first[code == next ? previous : code]
                first[next] = first[previous]
                length[next] = length[previous] + 1
                next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            // Write the string back to front; only what fits in the frame.
            let stringLength = Int(length[code])
            let fits = min(stringLength, pixels - written)
            var walk = code
            var index = stringLength - 1
            while index >= 0 {
                if index < fits { output[written + index] = suffix[walk] }
                walk = Int(prefix[walk])
                index -= 1
            }
            written += fits
            previous = code
        }
        guard written == pixels else { throw .truncated("GIF LZW data ends after \(written) of \(pixels) pixels") }
        return output
    }
}
