/// A DEFLATE (RFC 1951) decoder: stored, fixed-Huffman and dynamic-Huffman blocks.
///
/// ```swift
/// let (bytes, used) = try Inflater.inflate(input, maxOutputBytes: 1 << 20)
/// ```
/// Strict where zlib is: over-subscribed or (beyond what the RFC allows) incomplete code lengths, a
/// repeat with nothing to repeat, too many length or distance codes, a missing end-of-block code,
/// literal/length symbols 286-287 and distance symbols 30-31, distances reaching before the first
/// output byte, and a stored block whose length and its complement disagree are all `.malformed`;
/// running out of input is `.truncated`. The output never grows past `maxOutputBytes`, so a
/// decompression bomb costs a `.tooLarge` error and at most that much memory.
package enum Inflater {
    /// Decompresses the raw DEFLATE stream at the start of `input`.
    /// - Parameters:
    ///   - expectedBytes: the size the caller expects (a PNG knows it); the first allocation. The
    ///     output may be shorter or longer, up to `maxOutputBytes`.
    ///   - maxOutputBytes: the most the stream may produce.
    /// - Returns: the bytes, and how many input bytes the stream took (through its last partial byte).
    package static func inflate(_ input: UnsafeRawBufferPointer, expectedBytes: Int? = nil,
                                maxOutputBytes: Int) throws(ImageError) -> (output: [UInt8], consumed: Int) {
        var reader = BitReader(input)
        var output = OutputBuffer(initialCapacity: min(expectedBytes ?? 64 << 10, maxOutputBytes), limit: maxOutputBytes)
        defer { output.deallocate() }
        try inflate(&reader, into: &output)
        return (output.array(), reader.bytesConsumed)
    }

    /// Decompresses the raw DEFLATE stream at the start of `input` into an array of exactly
    /// `outputBytes`, with no copy: PNG knows its inflated size.
    /// - Returns: the bytes, how many of them the stream filled (the rest are zero), and how many
    ///   input bytes the stream took.
    /// - Throws: `.tooLarge` when the stream holds more than `outputBytes`.
    package static func inflate(_ input: UnsafeRawBufferPointer, exactly outputBytes: Int) throws(ImageError)
        -> (output: [UInt8], filled: Int, consumed: Int) {
        var reader = BitReader(input)
        var failure: ImageError?
        var filled = 0
        let output = [UInt8](unsafeUninitializedCapacity: outputBytes) { buffer, count in
            var target = OutputBuffer(borrowing: buffer)
            // The closure's `do` infers an untyped error, so the typed one comes out through a Result.
            if case .failure(let error) = Result(catching: { () throws(ImageError) in try inflate(&reader, into: &target) }) {
                failure = error
            }
            filled = target.count
            // Zero what the stream did not fill, so the array is fully initialized either way.
            buffer.baseAddress.map { ($0 + filled).initialize(repeating: 0, count: outputBytes - filled) }
            count = outputBytes
        }
        if let failure { throw failure }
        return (output, filled, reader.bytesConsumed)
    }

    /// Decodes blocks from `reader` until the final one; the reader is then byte-aligned after it.
    static func inflate(_ reader: inout BitReader, into output: inout OutputBuffer) throws(ImageError) {
        var final = false
        while !final {
            reader.refill()
            final = reader.read(1) == 1
            switch reader.read(2) {
            case 0:
                try copyStoredBlock(&reader, into: &output)
            case 1:
                try decodeHuffmanBlock(&reader, into: &output, literals: .fixedLiteralLength, distances: .fixedDistance)
            case 2:
                let (literals, distances) = try readDynamicTables(&reader)
                try decodeHuffmanBlock(&reader, into: &output, literals: literals, distances: distances)
            default:
                throw .malformed("deflate block type 3 is reserved")
            }
            if reader.overran { throw .truncated("deflate stream ends inside a block") }
        }
        reader.alignToByte()
    }

    private static func copyStoredBlock(_ reader: inout BitReader, into output: inout OutputBuffer) throws(ImageError) {
        reader.alignToByte()
        var header = [UInt8](repeating: 0, count: 4)
        for index in 0..<4 {
            guard let byte = reader.readByte() else { throw .truncated("stored block header") }
            header[index] = byte
        }
        let length = Int(header[0]) | Int(header[1]) << 8
        let complement = Int(header[2]) | Int(header[3]) << 8
        guard length ^ complement == 0xFFFF else { throw .malformed("stored block length and its complement disagree") }
        try output.reserve(length)
        guard reader.copyBytes(length, to: output.end) else { throw .truncated("stored block data") }
        output.count += length
    }

    /// The hot loop: one refill a step covers a literal, or a length with its distance (at most
    /// 15 + 5 + 15 + 13 = 48 bits).
    private static func decodeHuffmanBlock(_ reader: inout BitReader, into output: inout OutputBuffer,
                                           literals: HuffmanTable, distances: HuffmanTable) throws(ImageError) {
        let literalRoot = literals.rootBits, distanceRoot = distances.rootBits
        try literals.entries.withUnsafeBufferPointer { (literalTable) throws(ImageError) in
            try distances.entries.withUnsafeBufferPointer { (distanceTable) throws(ImageError) in
                while true {
                    reader.refill()
                    if reader.position > reader.count, reader.overran { throw .truncated("deflate stream ends inside a block") }
                    let entry = try decodeEntry(&reader, literalTable, rootBits: literalRoot)
                    if entry & (HuffmanTable.lengthFlag | HuffmanTable.endOfBlockFlag) == 0 {
                        if output.count == output.capacity { try output.reserve(1) }
                        output.base[output.count] = UInt8(truncatingIfNeeded: entry >> 16)
                        output.count += 1
                        continue
                    }
                    if entry & HuffmanTable.endOfBlockFlag != 0 { return }
                    let length = Int(entry >> 16) + reader.read(Int(entry >> 4 & 0xF))
                    let distanceEntry = try decodeEntry(&reader, distanceTable, rootBits: distanceRoot)
                    let distance = Int(distanceEntry >> 16) + reader.read(Int(distanceEntry >> 4 & 0xF))
                    guard distance <= output.count else {
                        throw .malformed("distance \(distance) reaches before the start of the output")
                    }
                    if output.capacity - output.count < length { try output.reserve(length) }
                    copyMatch(output.base + output.count, distance: distance, length: length)
                    output.count += length
                }
            }
        }
    }

    /// Decodes and consumes the next code of `table`, returning its entry; the accumulator must hold
    /// at least 15 bits.
    @inline(__always)
    static func decodeEntry(_ reader: inout BitReader, _ table: UnsafeBufferPointer<UInt32>,
                            rootBits: Int) throws(ImageError) -> UInt32 {
        var entry = table[reader.peek(rootBits)]
        if entry & HuffmanTable.linkFlag != 0 {
            reader.consume(rootBits)
            entry = table[Int(entry >> 16) + reader.peek(Int(entry & 0xF))]
        }
        if entry & HuffmanTable.invalidFlag != 0 {
            throw .malformed("a Huffman code the block's table leaves unused or reserves")
        }
        reader.consume(Int(entry & 0xF))
        return entry
    }

    /// Copies `length` bytes from `distance` back; the ranges overlap when distance < length, which
    /// repeats the last `distance` bytes (a run).
    @inline(__always)
    private static func copyMatch(_ destination: UnsafeMutablePointer<UInt8>, distance: Int, length: Int) {
        let source = destination - distance
        if distance >= length {
            destination.update(from: source, count: length)
        } else if distance == 1 {
            destination.update(repeating: source.pointee, count: length)
        } else {
            for index in 0..<length { destination[index] = source[index] }
        }
    }
}
