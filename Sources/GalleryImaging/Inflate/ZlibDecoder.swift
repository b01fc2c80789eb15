/// zlib streams (RFC 1950): a two-byte header, a DEFLATE stream, and the Adler-32 of the output.
///
/// Preset dictionaries (FDICT) are refused as `.unsupported`: PNG forbids them and nothing else here
/// makes them. The header's window size is checked to be at most 32 KiB, and the trailer must match.
package enum ZlibDecoder {
    /// Decompresses the zlib stream at the start of `data`; bytes after its trailer are ignored.
    /// - Parameters:
    ///   - expectedBytes: the output size the caller expects (the first allocation), if known.
    ///   - maxOutputBytes: the most the stream may produce; more is `.tooLarge`.
    package static func decompress(_ data: UnsafeRawBufferPointer, expectedBytes: Int? = nil,
                                   maxOutputBytes: Int) throws(ImageError) -> [UInt8] {
        let body = try checkHeader(data)
        let (output, consumed) = try Inflater.inflate(body, expectedBytes: expectedBytes, maxOutputBytes: maxOutputBytes)
        try checkTrailer(body, consumed: consumed, output: output)
        return output
    }

    /// Checks the two header bytes and returns the deflate stream after them.
    private static func checkHeader(_ data: UnsafeRawBufferPointer) throws(ImageError) -> UnsafeRawBufferPointer {
        guard data.count >= 2 else { throw .truncated("zlib header") }
        let method = data[0], flags = data[1]
        guard method & 0x0F == 8 else { throw .malformed("zlib compression method \(method & 0x0F), not deflate") }
        guard method >> 4 <= 7 else { throw .malformed("zlib window size above 32 KiB") }
        guard (UInt16(method) << 8 | UInt16(flags)) % 31 == 0 else { throw .malformed("zlib header check bits") }
        guard flags & 0x20 == 0 else { throw .unsupported("zlib preset dictionary") }
        return UnsafeRawBufferPointer(rebasing: data[2...])
    }

    /// Checks the Adler-32 after the `consumed` bytes of `body` against `output`.
    private static func checkTrailer(_ body: UnsafeRawBufferPointer, consumed: Int, output: [UInt8]) throws(ImageError) {
        guard body.count - consumed >= 4 else { throw .truncated("zlib Adler-32 trailer") }
        let trailer = body[consumed..<consumed + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let actual = output.withUnsafeBytes { Adler32.checksum($0) }
        guard trailer == actual else { throw .malformed("zlib Adler-32 mismatch") }
    }

    /// Decompresses a zlib stream that must inflate to exactly `outputBytes` (PNG's image data),
    /// into an array of that size with no copy.
    /// - Throws: `.tooLarge` for more data, `.truncated` for less, as well as `decompress`'s errors.
    package static func decompress(_ data: [UInt8], exactly outputBytes: Int) throws(ImageError) -> [UInt8] {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) -> [UInt8] in
                let body = try checkHeader(bytes)
                let (output, filled, consumed) = try Inflater.inflate(body, exactly: outputBytes)
                guard filled == outputBytes else { throw .truncated("inflated \(filled) of \(outputBytes) bytes") }
                try checkTrailer(body, consumed: consumed, output: output)
                return output
            }
        }
        return try result.get()
    }

    /// `decompress` of a byte array.
    package static func decompress(_ data: [UInt8], expectedBytes: Int? = nil, maxOutputBytes: Int) throws(ImageError) -> [UInt8] {
        // `withUnsafeBytes` rethrows untyped errors, so the typed one comes out through a Result.
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageError) in try decompress(bytes, expectedBytes: expectedBytes, maxOutputBytes: maxOutputBytes) }
        }
        return try result.get()
    }
}
