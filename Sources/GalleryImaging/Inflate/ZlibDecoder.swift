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
        guard data.count >= 2 else { throw .truncated("zlib header") }
        let method = data[0], flags = data[1]
        guard method & 0x0F == 8 else { throw .malformed("zlib compression method \(method & 0x0F), not deflate") }
        guard method >> 4 <= 7 else { throw .malformed("zlib window size above 32 KiB") }
        guard (UInt16(method) << 8 | UInt16(flags)) % 31 == 0 else { throw .malformed("zlib header check bits") }
        guard flags & 0x20 == 0 else { throw .unsupported("zlib preset dictionary") }
        let body = UnsafeRawBufferPointer(rebasing: data[2...])
        let (output, consumed) = try Inflater.inflate(body, expectedBytes: expectedBytes, maxOutputBytes: maxOutputBytes)
        guard body.count - consumed >= 4 else { throw .truncated("zlib Adler-32 trailer") }
        let trailer = body[consumed..<consumed + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let actual = output.withUnsafeBytes { Adler32.checksum($0) }
        guard trailer == actual else { throw .malformed("zlib Adler-32 mismatch") }
        return output
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
