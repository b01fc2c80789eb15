/// Scalar multiplication: a[B] in constant time with a fixed-base table (signing, key
/// generation), and [a]A + [b]B in variable time with width-w NAFs (verification: public values).
extension EdwardsPoint {
    /// [k]B for a 32-byte little-endian scalar `k` below 2^255, in constant time.
    ///
    /// ref10's method: k is written in 64 signed radix-16 digits e_i in -8...8, and
    /// [k]B = Σ e_i·16^i·B is summed from `baseTable`, which holds [1...8]·256^j·B for j in 0..<32:
    /// the odd digits first (then times 16: four doublings), then the even ones. Each digit's
    /// point is chosen by scanning all 8 entries of its row with masks, and negated with a mask:
    /// no memory index and no branch depends on k. 64 mixed additions, 4 doublings.
    static func multiplyBase(_ k: [UInt8]) -> EdwardsPoint {
        var digits = [Int8](repeating: 0, count: 64)
        for index in 0..<32 {
            digits[2 * index] = Int8(k[index] & 15)
            digits[2 * index + 1] = Int8(k[index] >> 4)
        }
        // Recenter 0...15 to -8...7, carrying upward: arithmetic on the digits, no branch.
        var carry: Int8 = 0
        for index in 0..<63 {
            digits[index] &+= carry
            carry = (digits[index] &+ 8) >> 4
            digits[index] &-= carry << 4
        }
        digits[63] &+= carry

        return baseTable.withUnsafeBufferPointer { table in
            var sum = EdwardsPoint.identity
            for index in stride(from: 1, to: 64, by: 2) {
                sum = (sum + select(table, row: index / 2, digit: digits[index])).extended
            }
            sum = sum.doubled.projective.doubled.projective.doubled.projective.doubled.extended
            for index in stride(from: 0, to: 64, by: 2) {
                sum = (sum + select(table, row: index / 2, digit: digits[index])).extended
            }
            return sum
        }
    }

    /// [digit]·256^row·B from `table`, for a digit in -8...8, in constant time.
    @inline(__always)
    private static func select(_ table: UnsafeBufferPointer<Affine>, row: Int, digit: Int8) -> Affine {
        let negative = UInt64(UInt8(bitPattern: digit) >> 7)
        let magnitude = UInt64(UInt8(bitPattern: digit &- ((0 &- Int8(negative)) & digit) &<< 1))
        var result = Affine.identity
        for entry in 1...8 {
            // 1 when magnitude == entry: (x ^ entry) - 1 borrows out of bit 63 only for 0.
            let equal = ((magnitude ^ UInt64(entry)) &- 1) >> 63
            result.assign(table[8 * row + entry - 1], if: equal)
        }
        return result.negated(if: negative)
    }

    /// [1...8]·256^j·B for j in 0..<32, row by row (256 points, one inversion each, built once).
    static let baseTable: [Affine] = {
        var table: [Affine] = []
        table.reserveCapacity(256)
        var rowBase = EdwardsPoint.base
        for _ in 0..<32 {
            let cached = rowBase.cached
            var multiple = rowBase
            for entry in 1...8 {
                table.append(Affine(multiple))
                if entry < 8 { multiple = (multiple + cached).extended }
            }
            var next = rowBase.projective
            for _ in 0..<7 { next = next.doubled.projective }
            rowBase = next.doubled.extended
        }
        return table
    }()

    /// The odd multiples B, 3B, ..., 127B for the width-8 NAF of verification (64 points).
    static let oddBaseMultiples: [Affine] = {
        var multiples: [Affine] = []
        let twice = EdwardsPoint.base.doubled.extended.cached
        var multiple = EdwardsPoint.base
        for _ in 0..<64 {
            multiples.append(Affine(multiple))
            multiple = (multiple + twice).extended
        }
        return multiples
    }()

    /// [a]·self + [b]·B for 32-byte little-endian scalars below 2^255. **Variable time**: for
    /// verification only, where a, b and the point are public.
    ///
    /// a in width-5 NAF over the odd multiples self...15·self (8 cached points made here), b in
    /// width-8 NAF over `oddBaseMultiples`; one doubling per bit from the highest nonzero digit.
    func multiplyVartime(_ a: [UInt8], plusBaseTimes b: [UInt8]) -> Projective {
        let aDigits = Self.nonAdjacentForm(a, width: 5)
        let bDigits = Self.nonAdjacentForm(b, width: 8)
        var odd: [Cached] = [cached]
        let twice = doubled.extended
        var multiple = self
        for _ in 1..<8 {
            multiple = (twice + odd[odd.count - 1]).extended
            odd.append(multiple.cached)
        }
        var top = 255
        while top >= 0 && aDigits[top] == 0 && bDigits[top] == 0 { top -= 1 }
        var sum = Projective.identity
        return Self.oddBaseMultiples.withUnsafeBufferPointer { baseOdd in
            for index in stride(from: top, through: 0, by: -1) {
                var step = sum.doubled
                let aDigit = aDigits[index], bDigit = bDigits[index]
                if aDigit > 0 {
                    step = step.extended + odd[Int(aDigit) / 2]
                } else if aDigit < 0 {
                    step = step.extended - odd[Int(-aDigit) / 2]
                }
                if bDigit > 0 {
                    step = step.extended + baseOdd[Int(bDigit) / 2]
                } else if bDigit < 0 {
                    step = step.extended - baseOdd[Int(-bDigit) / 2]
                }
                sum = step.projective
            }
            return sum
        }
    }

    /// The width-`width` non-adjacent form of a 32-byte scalar below 2^255: 256 digits, each 0 or
    /// odd with |digit| < 2^(width-1), nonzero digits at least `width` apart, Σ digit_i·2^i = k.
    static func nonAdjacentForm(_ k: [UInt8], width: Int) -> [Int8] {
        var words = [UInt64](repeating: 0, count: 5)
        for index in 0..<32 { words[index / 8] |= UInt64(k[index]) << (8 * UInt64(index % 8)) }
        var digits = [Int8](repeating: 0, count: 256)
        let windowSize = 1 << width, windowMask = UInt64(windowSize - 1)
        var position = 0
        var carry = 0
        while position < 256 {
            let word = position / 64, bit = position % 64
            let bits = bit < 64 - width
                ? words[word] >> UInt64(bit)
                : words[word] >> UInt64(bit) | words[word + 1] << UInt64(64 - bit)
            let window = carry + Int(bits & windowMask)
            if window & 1 == 0 {
                position += 1
                continue
            }
            if window < windowSize / 2 {
                carry = 0
                digits[position] = Int8(window)
            } else {
                carry = 1
                digits[position] = Int8(window - windowSize)
            }
            position += width
        }
        return digits
    }
}
