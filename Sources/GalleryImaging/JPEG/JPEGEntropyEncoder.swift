/// Huffman-codes quantized blocks with the Annex K tables.
struct JPEGEntropyEncoder {
    /// code | length << 16 for each symbol, per table: DC luma, AC luma, DC chroma, AC chroma.
    let codes: [[UInt32]]
    let lumaDivisors: [Float]
    let chromaDivisors: [Float]

    init(lumaQuant: [Int], chromaQuant: [Int]) {
        func build(_ counts: [Int], _ symbols: [UInt8]) -> [UInt32] {
            var table = [UInt32](repeating: 0, count: 256)
            var code: UInt32 = 0, index = 0
            for length in 1...16 {
                for _ in 0..<counts[length - 1] {
                    table[Int(symbols[index])] = code | UInt32(length) << 16
                    code += 1
                    index += 1
                }
                code <<= 1
            }
            return table
        }
        codes = [
            build(JPEGStandardTables.dcLuminanceCounts, JPEGStandardTables.dcSymbols),
            build(JPEGStandardTables.acLuminanceCounts, JPEGStandardTables.acLuminanceSymbols),
            build(JPEGStandardTables.dcChrominanceCounts, JPEGStandardTables.dcSymbols),
            build(JPEGStandardTables.acChrominanceCounts, JPEGStandardTables.acChrominanceSymbols),
        ]
        lumaDivisors = JPEGForwardDCT.divisors(lumaQuant)
        chromaDivisors = JPEGForwardDCT.divisors(chromaQuant)
    }

    mutating func encode(_ planes: JPEGEncoderPlanes, gray: Bool, into writer: inout JPEGBitWriter) {
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { samples.deallocate() }
        var predictors: [Int32] = [0, 0, 0]
        let mcu = gray ? 8 : 16
        let natural = JPEGZigzag.natural
        for mcuY in stride(from: 0, to: planes.lumaHeight, by: mcu) {
            for mcuX in stride(from: 0, to: planes.lumaWidth, by: mcu) {
                for by in stride(from: 0, to: mcu, by: 8) {
                    for bx in stride(from: 0, to: mcu, by: 8) {
                        load(planes.luma, planes.lumaWidth, mcuX + bx, mcuY + by, samples)
                        encodeBlock(samples, lumaDivisors, codes[0], codes[1], &predictors[0], natural, &writer)
                    }
                }
                if !gray {
                    load(planes.cb, planes.chromaWidth, mcuX / 2, mcuY / 2, samples)
                    encodeBlock(samples, chromaDivisors, codes[2], codes[3], &predictors[1], natural, &writer)
                    load(planes.cr, planes.chromaWidth, mcuX / 2, mcuY / 2, samples)
                    encodeBlock(samples, chromaDivisors, codes[2], codes[3], &predictors[2], natural, &writer)
                }
            }
        }
    }

    @inline(__always) private func load(_ plane: [Float], _ width: Int, _ x: Int, _ y: Int, _ samples: UnsafeMutablePointer<Float>) {
        plane.withUnsafeBufferPointer { p in
            for row in 0..<8 {
                (samples + row * 8).update(from: p.baseAddress! + (y + row) * width + x, count: 8)
            }
        }
    }

    /// The number of bits of |value| (T.81's SSSS category).
    @inline(__always) private static func category(_ value: Int32) -> Int {
        let magnitude = UInt32(value.magnitude)
        return magnitude == 0 ? 0 : 32 - magnitude.leadingZeroBitCount
    }

    @inline(__always) private func encodeBlock(
        _ samples: UnsafeMutablePointer<Float>, _ divisors: [Float], _ dc: [UInt32], _ ac: [UInt32],
        _ predictor: inout Int32, _ natural: [UInt8], _ writer: inout JPEGBitWriter
    ) {
        JPEGForwardDCT.transform(samples)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 64) { q in
            divisors.withUnsafeBufferPointer { d in
                natural.withUnsafeBufferPointer { z in
                    for k in 0..<64 {
                        let i = Int(z[k])
                        // Round half away from zero by hand: Float.rounded() is a libm call.
                        let scaled = samples[i] * d[i]
                        q[k] = Int32(scaled + (scaled < 0 ? -0.5 : 0.5))
                    }
                }
            }
            dc.withUnsafeBufferPointer { dcCodes in
                ac.withUnsafeBufferPointer { acCodes in
                    let diff = q[0] &- predictor
                    predictor = q[0]
                    emit(diff, symbolBase: 0, dcCodes.baseAddress!, &writer)
                    var run: Int32 = 0
                    for k in 1..<64 {
                        let value = q[k]
                        if value == 0 {
                            run += 1
                            continue
                        }
                        while run > 15 {
                            let zrl = acCodes[0xF0]
                            writer.write(zrl & 0xFFFF, Int(zrl >> 16))
                            run -= 16
                        }
                        emit(value, symbolBase: run << 4, acCodes.baseAddress!, &writer)
                        run = 0
                    }
                    if run > 0 {
                        let eob = acCodes[0]
                        writer.write(eob & 0xFFFF, Int(eob >> 16))
                    }
                }
            }
        }
    }

    /// Writes the symbol (run << 4 | category) and then the value's bits (negative values as value - 1).
    @inline(__always) private func emit(_ value: Int32, symbolBase: Int32, _ table: UnsafePointer<UInt32>, _ writer: inout JPEGBitWriter) {
        let size = Self.category(value)
        let code = table[Int(symbolBase) | size]
        writer.write(code & 0xFFFF, Int(code >> 16))
        if size > 0 {
            let bits = UInt32(bitPattern: value < 0 ? value - 1 : value) & ((1 << UInt32(size)) - 1)
            writer.write(bits, size)
        }
    }
}
