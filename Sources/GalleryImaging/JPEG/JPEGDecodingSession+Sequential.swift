/// Baseline and extended sequential scans: each block is decoded and at once turned into samples
/// by the IDCT of the chosen scale, so no coefficient buffer is ever allocated.
extension JPEGDecodingSession {
    /// The pointers a scan's hot loop uses, gathered once so the loop does no bounds-checked access.
    struct ScanComponent {
        var dc: UnsafePointer<Int32>
        var ac: UnsafePointer<Int32>
        var quant: UnsafePointer<Int32>
        var horizontal: Int
        var vertical: Int
        var blockSize: Int
        var stride: Int
        var plane: UnsafeMutablePointer<UInt8>
        var coefficients: UnsafeMutablePointer<Int16>
        var blocksPerLine: Int
        var blockStride: Int
        var predictor: Int32 = 0
    }

    /// Runs `body` with the scan's components resolved to pointers into this session's buffers.
    mutating func withScanComponents<R>(
        _ scan: Scan, _ body: (inout [ScanComponent], UnsafePointer<UInt8>) throws(ImageError) -> R
    ) throws(ImageError) -> R {
        guard let frame else { throw .malformed("scan before frame header") }
        // Moved out so the closures below hold the only reference: no copy on write.
        var planeStore = planes, coefficientStore = coefficients
        planes = []
        coefficients = []
        defer {
            planes = planeStore
            coefficients = coefficientStore
        }
        let huffmanStore = huffman, quantStore = quant
        let natural = JPEGZigzag.natural
        let result: Result<R, ImageError> = planeStore.withUnsafeMutableBufferPointer { planeBuffer in
            coefficientStore.withUnsafeMutableBufferPointer { coefficientBuffer in
                huffmanStore.withUnsafeBufferPointer { huffmanBuffer in
                    quantStore.withUnsafeBufferPointer { quantBuffer in
                        natural.withUnsafeBufferPointer { naturalBuffer in
                            let size = JPEGHuffmanTable.storageCount
                            var components = scan.components.map { index in
                                let c = frame.components[index]
                                return ScanComponent(
                                    dc: huffmanBuffer.baseAddress! + c.dcTable * size,
                                    ac: huffmanBuffer.baseAddress! + (4 + c.acTable) * size,
                                    quant: quantBuffer.baseAddress! + c.quantTable * 64,
                                    horizontal: c.horizontalSampling, vertical: c.verticalSampling,
                                    blockSize: c.blockSize, stride: c.planeStride,
                                    plane: planeBuffer.baseAddress! + c.planeOffset,
                                    coefficients: (coefficientBuffer.baseAddress ?? UnsafeMutablePointer(bitPattern: 16)!) + c.coefficientOffset,
                                    blocksPerLine: c.blocksPerLine, blockStride: c.coefficientsPerBlock)
                            }
                            do throws(ImageError) {
                                return .success(try body(&components, naturalBuffer.baseAddress!))
                            } catch {
                                return .failure(error)
                            }
                        }
                    }
                }
            }
        }
        return try result.get()
    }

    /// Decodes a sequential scan into the planes. Returns where its data stopped.
    mutating func decodeSequentialScan(_ scan: Scan, dataStart: Int) throws(ImageError) -> Int {
        guard let frame else { throw .malformed("scan before frame header") }
        let single = scan.components.count == 1
        let first = frame.components[scan.components[0]]
        let mcusAcross = single ? first.widthInBlocks : frame.mcusPerLine
        let mcusDown = single ? first.heightInBlocks : frame.mcusPerColumn
        let restartInterval = restartInterval
        let base = bytes.baseAddress!, byteCount = bytes.count
        let block = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
        let workspace = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
        block.initialize(repeating: 0, count: 64)
        workspace.initialize(repeating: 0, count: 64)
        defer {
            block.deallocate()
            workspace.deallocate()
        }
        // The reader is local to the closure so it lives in registers, not in a captured box.
        return try withScanComponents(scan) { (components, natural) throws(ImageError) -> Int in
            var reader = JPEGBitReader(base: base, position: dataStart, end: byteCount)
            if single {
                components[0].horizontal = 1
                components[0].vertical = 1
            }
            var mcu = 0
            for mcuY in 0..<mcusDown {
                for mcuX in 0..<mcusAcross {
                    if restartInterval > 0, mcu > 0, mcu % restartInterval == 0 {
                        try reader.restart()
                        for index in components.indices { components[index].predictor = 0 }
                    }
                    mcu += 1
                    for index in components.indices {
                        let c = components[index]
                        var predictor = c.predictor
                        for v in 0..<c.vertical {
                            for h in 0..<c.horizontal {
                                try Self.decodeBlock(&reader, c.dc, c.ac, &predictor, block, natural)
                                let x = (mcuX * c.horizontal + h) * c.blockSize
                                let y = (mcuY * c.vertical + v) * c.blockSize
                                let out = c.plane + y * c.stride + x
                                switch c.blockSize {
                                case 8: JPEGInverseDCT.idct8x8(block, c.quant, out, c.stride, workspace)
                                case 4: JPEGInverseDCT.idct4x4(block, c.quant, out, c.stride, workspace)
                                case 2: JPEGInverseDCT.idct2x2(block, c.quant, out, c.stride, workspace)
                                default: JPEGInverseDCT.idct1x1(block, c.quant, out)
                                }
                                block.update(repeating: 0, count: 64)
                            }
                        }
                        components[index].predictor = predictor
                    }
                }
                // Data ran out: the reader has been feeding zeros for a while.
                if reader.paddedBytes > 64 { throw .truncated("scan data") }
            }
            return reader.position
        }
    }

    /// One block of a sequential scan (T.81 F.2.2), coefficients stored in natural order.
    @inline(__always)
    static func decodeBlock(
        _ reader: inout JPEGBitReader, _ dc: UnsafePointer<Int32>, _ ac: UnsafePointer<Int32>,
        _ predictor: inout Int32, _ block: UnsafeMutablePointer<Int16>, _ natural: UnsafePointer<UInt8>
    ) throws(ImageError) {
        let size = try reader.symbol(dc)
        guard size <= 16 else { throw .malformed("DC difference size") }
        predictor &+= reader.signed(size)
        block[0] = Int16(truncatingIfNeeded: predictor)
        var k = 1
        let fastAC = ac + JPEGHuffmanTable.fastACOffset
        while k < 64 {
            // The common case in one lookup: code and value bits together.
            if reader.count < 16 { reader.fill() }
            let fast = fastAC[Int(truncatingIfNeeded: reader.buffer >> UInt64(64 - JPEGHuffmanTable.lookaheadBits))]
            if fast != 0 {
                let used = Int(fast & 0xFF)
                reader.buffer <<= UInt64(used)
                reader.count -= used
                k += Int((fast >> 8) & 0xFF)
                guard k < 64 else { throw .malformed("AC coefficient past the block") }
                block[Int(natural[k])] = Int16(truncatingIfNeeded: fast >> 16)
                k += 1
                continue
            }
            let symbol = try reader.symbol(ac)
            let run = symbol >> 4, bits = symbol & 15
            if bits == 0 {
                if run != 15 { break }
                k += 16
                continue
            }
            k += run
            guard k < 64 else { throw .malformed("AC coefficient past the block") }
            block[Int(natural[k])] = Int16(truncatingIfNeeded: reader.signed(bits))
            k += 1
        }
    }
}
