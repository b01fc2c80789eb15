/// Searches inside one node's block of an arena, sixteen entries per step and without a branch
/// per entry: the inner loops of every walk up and down a gallery's tree.
///
/// A node's block is `SlotForest.fanout` (64) entries, so a 16-entry load at any chunk below
/// `fanout / 16` stays inside the block; entries at or past the node's count are masked out, as
/// they may hold stale values left by a split.
extension SlotForest {
    /// Lane numbers 0...15, to mask the entries past a node's count and to name a matching lane.
    /// (A constant, not a stored `static let`, whose lazy initialization would be checked at each use.)
    @inline(__always)
    private static var lanes: SIMD16<Int32> { SIMD16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }

    /// All ones in the lanes below `count`, zero in the others (arithmetic: a `SIMDMask` select
    /// is compiled lane by lane through memory).
    @inline(__always)
    private static func lanesBelow(_ count: Int) -> SIMD16<Int32> {
        (lanes &- SIMD16<Int32>(repeating: Int32(truncatingIfNeeded: count))) &>> 31
    }

    /// The sum of the lanes, wrapping (halving the vector: `wrappedSum()` is not inlined).
    @inline(__always)
    private static func sum(_ vector: SIMD16<Int32>) -> Int32 {
        let eight = vector.lowHalf &+ vector.highHalf
        let four = eight.lowHalf &+ eight.highHalf
        let two = four.lowHalf &+ four.highHalf
        return two[0] &+ two[1]
    }

    /// The position of `value` among the first `count` entries of `node`'s block in `entries`
    /// (which must hold it exactly once).
    ///
    /// - Complexity: at most `fanout / 16` vector compares.
    @inline(__always)
    static func find(_ value: Int32, in entries: [Int32], node: Int32, count: Int) -> Int {
        entries.withUnsafeBufferPointer { buffer in
            // Unused entries hold -1 and never match a slot or node index.
            let start = UnsafeRawPointer(buffer.baseAddress! + Int(node) * fanout)
            let wanted = SIMD16<Int32>(repeating: value)
            var chunk = 0
            while chunk * 16 < count {
                let entries = start.loadUnaligned(fromByteOffset: chunk * 64, as: SIMD16<Int32>.self)
                if any(entries .== wanted) {
                    // All ones where the entry differs (then `difference` or its negation is negative).
                    let difference = entries ^ wanted
                    let differs = (difference | (0 &- difference)) &>> 31
                    // One lane matches: the sum of the lane numbers where none differs names it.
                    return chunk * 16 + Int(Self.sum(lanes & ~differs))
                }
                chunk += 1
            }
            preconditionFailure("\(value) is not in node \(node)")
        }
    }

    /// The sum of the first `count` entries of `node`'s block in `counts`.
    ///
    /// - Complexity: at most `fanout / 16` vector adds.
    @inline(__always)
    static func prefixSum(of counts: [Int32], node: Int32, count: Int) -> Int {
        counts.withUnsafeBufferPointer { buffer in
            let start = UnsafeRawPointer(buffer.baseAddress! + Int(node) * fanout)
            var sum = SIMD16<Int32>.zero
            var chunk = 0
            while chunk * 16 + 16 <= count {
                sum &+= start.loadUnaligned(fromByteOffset: chunk * 64, as: SIMD16<Int32>.self)
                chunk += 1
            }
            let rest = count - chunk * 16
            if rest > 0 {
                let values = start.loadUnaligned(fromByteOffset: chunk * 64, as: SIMD16<Int32>.self)
                sum &+= values & Self.lanesBelow(rest)
            }
            return Int(Self.sum(sum))
        }
    }

    /// The child of `node` (one of its first `count` entries) that holds the entry `remaining`
    /// places from the node's start, counting by `counts`, and how far into that child it is.
    /// `remaining` must be below the sum of the node's counts.
    ///
    /// - Complexity: at most `fanout / 16` vector sums and one scan of 16 entries.
    @inline(__always)
    static func descend(
        into counts: [Int32], node: Int32, count: Int, remaining: Int32
    ) -> (child: Int, remaining: Int32) {
        counts.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress! + Int(node) * fanout
            var remaining = remaining
            var chunk = 0
            while true {
                let valid = count - chunk * 16
                var values = UnsafeRawPointer(start).loadUnaligned(fromByteOffset: chunk * 64, as: SIMD16<Int32>.self)
                if valid < 16 { values &= Self.lanesBelow(valid) }
                let sum = Self.sum(values)
                if remaining >= sum && valid > 16 {
                    remaining -= sum
                    chunk += 1
                    continue
                }
                // The child is in this chunk; the last valid entry stops the scan in any case.
                let entries = start + chunk * 16
                let last = min(valid, 16) - 1
                var lane = 0
                while lane < last && remaining >= entries[lane] {
                    remaining -= entries[lane]
                    lane += 1
                }
                return (chunk * 16 + lane, remaining)
            }
        }
    }

    /// The position of the set bit of `mask` that has `rank` set bits below it (`rank` must be
    /// below the number of set bits).
    ///
    /// - Complexity: three halvings and at most seven steps in the last byte.
    @inline(__always)
    static func positionOfSetBit(_ rank: Int32, in mask: UInt64) -> Int {
        var mask = mask
        var rank = Int(rank)
        var shift = 0
        @inline(__always) func skipLow(_ width: Int) {
            let low = (mask & ((1 << UInt64(width)) - 1)).nonzeroBitCount
            if rank >= low {
                rank -= low
                mask >>= UInt64(width)
                shift += width
            }
        }
        skipLow(32)
        skipLow(16)
        skipLow(8)
        for _ in 0..<rank { mask &= mask - 1 }
        return shift + mask.trailingZeroBitCount
    }
}
