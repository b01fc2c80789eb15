/// Progressive scans (T.81 G.1.2): DC and AC, first passes and refinements, into the coefficient
/// buffer; the IDCT runs once all scans are in.
extension JPEGDecodingSession {
    /// Decodes one progressive scan. Returns where its data stopped.
    mutating func decodeProgressiveScan(_ scan: Scan, dataStart: Int) throws(ImageError) -> Int {
        guard let frame else { throw .malformed("scan before frame header") }
        let single = scan.components.count == 1
        let first = frame.components[scan.components[0]]
        // A 1/8 decode uses only DC: AC scans of a component decoded 1x1 are skipped unread.
        if scan.spectralStart > 0, first.blockSize == 1 { return dataStart }
        let mcusAcross = single ? first.widthInBlocks : frame.mcusPerLine
        let mcusDown = single ? first.heightInBlocks : frame.mcusPerColumn
        let restartInterval = restartInterval
        let start = scan.spectralStart, end = scan.spectralEnd
        let high = scan.approximationHigh, low = scan.approximationLow
        let base = bytes.baseAddress!, byteCount = bytes.count
        // The reader is local to the closure so it lives in registers, not in a captured box.
        return try withScanComponents(scan) { (components, natural) throws(ImageError) -> Int in
            var reader = JPEGBitReader(base: base, position: dataStart, end: byteCount)
            if single {
                components[0].horizontal = 1
                components[0].vertical = 1
            }
            var endOfBandRun = 0
            var mcu = 0
            for mcuY in 0..<mcusDown {
                for mcuX in 0..<mcusAcross {
                    if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                        try reader.restart()
                        for index in components.indices { components[index].predictor = 0 }
                        endOfBandRun = 0
                    }
                    mcu += 1
                    for index in components.indices {
                        let c = components[index]
                        for v in 0..<c.vertical {
                            for h in 0..<c.horizontal {
                                let x = mcuX * c.horizontal + h, y = mcuY * c.vertical + v
                                let block = c.coefficients + (y * c.blocksPerLine + x) * c.blockStride
                                if start == 0 {
                                    if high == 0 {
                                        let size = try reader.symbol(c.dc)
                                        guard size <= 16 else { throw .malformed("DC difference size") }
                                        components[index].predictor &+= reader.signed(size)
                                        block[0] = Int16(truncatingIfNeeded: components[index].predictor << Int32(low))
                                    } else if reader.bit() {
                                        block[0] |= Int16(truncatingIfNeeded: 1 << low)
                                    }
                                } else if high == 0 {
                                    try Self.decodeACFirst(&reader, c.ac, block, natural, start, end, low, &endOfBandRun)
                                } else {
                                    try Self.decodeACRefine(&reader, c.ac, block, natural, start, end, low, &endOfBandRun)
                                }
                            }
                        }
                    }
                }
                if reader.paddedBytes > 64 { throw .truncated("scan data") }
            }
            return reader.position
        }
    }

    /// An AC first pass: a band's coefficients scaled by 2^low, with end-of-band runs.
    @inline(__always)
    static func decodeACFirst(
        _ reader: inout JPEGBitReader, _ ac: UnsafePointer<Int32>, _ block: UnsafeMutablePointer<Int16>,
        _ natural: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ low: Int, _ endOfBandRun: inout Int
    ) throws(ImageError) {
        if endOfBandRun > 0 {
            endOfBandRun -= 1
            return
        }
        var k = start
        let fastAC = ac + JPEGHuffmanTable.fastACOffset
        while k <= end {
            if reader.count < 16 { reader.fill() }
            let fast = fastAC[Int(truncatingIfNeeded: reader.buffer >> UInt64(64 - JPEGHuffmanTable.lookaheadBits))]
            if fast != 0 {
                let used = Int(fast & 0xFF)
                reader.buffer <<= UInt64(used)
                reader.count -= used
                k += Int((fast >> 8) & 0xFF)
                guard k <= end else { throw .malformed("AC coefficient past the band") }
                block[Int(natural[k])] = Int16(truncatingIfNeeded: (fast >> 16) << Int32(low))
                k += 1
                continue
            }
            let symbol = try reader.symbol(ac)
            let run = symbol >> 4, bits = symbol & 15
            if bits == 0 {
                if run < 15 {
                    endOfBandRun = (1 << run) - 1
                    if run > 0 { endOfBandRun += reader.bits(run) }
                    return
                }
                k += 16
                continue
            }
            k += run
            guard k <= end else { throw .malformed("AC coefficient past the band") }
            block[Int(natural[k])] = Int16(truncatingIfNeeded: reader.signed(bits) << Int32(low))
            k += 1
        }
    }

    /// An AC refinement pass: one more bit for coefficients already nonzero, new ones of +-2^low.
    @inline(__always)
    static func decodeACRefine(
        _ reader: inout JPEGBitReader, _ ac: UnsafePointer<Int32>, _ block: UnsafeMutablePointer<Int16>,
        _ natural: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ low: Int, _ endOfBandRun: inout Int
    ) throws(ImageError) {
        let plus = Int16(truncatingIfNeeded: 1 << low), minus = Int16(truncatingIfNeeded: -1 << low)
        var k = start
        if endOfBandRun == 0 {
            while k <= end {
                let symbol = try reader.symbol(ac)
                var run = symbol >> 4
                let bits = symbol & 15
                var value: Int16 = 0
                if bits != 0 {
                    guard bits == 1 else { throw .malformed("refinement coefficient size") }
                    value = reader.bit() ? plus : minus
                } else if run != 15 {
                    endOfBandRun = 1 << run
                    if run > 0 { endOfBandRun += reader.bits(run) }
                    break
                }
                // Skip `run` zero coefficients, refining the nonzero ones passed on the way.
                while k <= end {
                    let z = Int(natural[k])
                    if block[z] != 0 {
                        if reader.bit(), block[z] & plus == 0 { block[z] &+= block[z] >= 0 ? plus : minus }
                    } else {
                        if run == 0 { break }
                        run -= 1
                    }
                    k += 1
                }
                if value != 0 {
                    guard k <= end else { throw .malformed("refinement past the band") }
                    block[Int(natural[k])] = value
                }
                k += 1
            }
        }
        if endOfBandRun > 0 {
            // Within an end-of-band run only the nonzero coefficients get their bit.
            while k <= end {
                let z = Int(natural[k])
                if block[z] != 0, reader.bit(), block[z] & plus == 0 { block[z] &+= block[z] >= 0 ? plus : minus }
                k += 1
            }
            endOfBandRun -= 1
        }
    }

    /// Turns the progressive coefficients into the planes, once every scan is in.
    mutating func inverseTransformCoefficients() throws(ImageError) {
        guard let frame else { return }
        let workspace = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        workspace.initialize(repeating: 0, count: 64)
        defer { workspace.deallocate() }
        for componentIndex in frame.components.indices {
            let scan = Scan(components: [componentIndex])
            try withScanComponents(scan) { (components, _) throws(ImageError) in
                let c = components[0]
                let rows = frame.components[componentIndex].blocksPerColumn
                for y in 0..<rows {
                    for x in 0..<c.blocksPerLine {
                        let block = c.coefficients + (y * c.blocksPerLine + x) * c.blockStride
                        let out = c.plane + y * c.blockSize * c.stride + x * c.blockSize
                        switch c.blockSize {
                        case 8: JPEGInverseDCT.idct8x8(block, c.quant, out, c.stride, workspace)
                        case 4: JPEGInverseDCT.idct4x4(block, c.quant, out, c.stride, workspace)
                        case 2: JPEGInverseDCT.idct2x2(block, c.quant, out, c.stride, workspace)
                        default: JPEGInverseDCT.idct1x1(block, c.quant, out)
                        }
                    }
                }
            }
        }
    }
}
