/// A point of edwards25519 (-x² + y² = 1 + d·x²·y²) in extended coordinates (X : Y : Z : T),
/// x = X/Z, y = Y/Z, x·y = T/Z (Hisil, Wong, Carter, Dawson 2008): the representation the
/// additions start from.
///
/// The formulas are ref10's: an addition or doubling yields a `Completed` point, which becomes a
/// `Projective` one (3 multiplications, enough to double again) or an extended one (4, needed to
/// add). A second operand is `Cached` (Y+X, Y-X, Z, 2d·T) or, for the tables of multiples of the
/// base point, `Affine` (y+x, y-x, 2d·x·y with Z = 1: one multiplication less per addition).
///
/// **Constant time:** every formula is straight-line field arithmetic (see `FieldElement25519`);
/// only the callers choose vartime paths (`EdwardsPoint+Multiply`), and only for public scalars.
struct EdwardsPoint: Sendable {
    var x, y, z, t: FieldElement25519

    /// The neutral element (0, 1).
    static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// -self: (-x, y).
    var negated: EdwardsPoint { EdwardsPoint(x: x.negated, y: y, z: z, t: t.negated) }

    /// The point without T, to double.
    var projective: Projective { Projective(x: x, y: y, z: z) }

    /// The point as the second operand of an addition.
    var cached: Cached { Cached(yPlusX: y + x, yMinusX: y - x, z: z, t2d: t * .d2) }

    /// 2·self.
    var doubled: Completed { projective.doubled }

    /// self + other.
    @inline(__always)
    static func + (p: EdwardsPoint, q: Cached) -> Completed {
        let a = (p.y - p.x) * q.yMinusX
        let b = (p.y + p.x) * q.yPlusX
        let c = q.t2d * p.t
        let zz = p.z * q.z
        let d = zz + zz
        return Completed(x: b - a, y: b + a, z: d + c, t: d - c)
    }

    /// self - other.
    @inline(__always)
    static func - (p: EdwardsPoint, q: Cached) -> Completed {
        let a = (p.y - p.x) * q.yPlusX
        let b = (p.y + p.x) * q.yMinusX
        let c = q.t2d * p.t
        let zz = p.z * q.z
        let d = zz + zz
        return Completed(x: b - a, y: b + a, z: d - c, t: d + c)
    }

    /// self + other, other affine.
    @inline(__always)
    static func + (p: EdwardsPoint, q: Affine) -> Completed {
        let a = (p.y - p.x) * q.yMinusX
        let b = (p.y + p.x) * q.yPlusX
        let c = q.xy2d * p.t
        let d = p.z + p.z
        return Completed(x: b - a, y: b + a, z: d + c, t: d - c)
    }

    /// self - other, other affine.
    @inline(__always)
    static func - (p: EdwardsPoint, q: Affine) -> Completed {
        let a = (p.y - p.x) * q.yPlusX
        let b = (p.y + p.x) * q.yMinusX
        let c = q.xy2d * p.t
        let d = p.z + p.z
        return Completed(x: b - a, y: b + a, z: d - c, t: d + c)
    }

    /// Whether this is a point of small order (its order divides the cofactor 8): 8·self is the
    /// identity, whose x is 0. Not constant time: public keys only.
    var hasSmallOrder: Bool {
        let eight = projective.doubled.projective.doubled.projective.doubled.projective
        return eight.x.isZero
    }
}

extension EdwardsPoint {
    /// (X : Y : Z) without T: what doubling needs.
    struct Projective: Sendable {
        var x, y, z: FieldElement25519

        /// The neutral element.
        static let identity = Projective(x: .zero, y: .one, z: .one)

        /// 2·self (ref10's ge_p2_dbl: 4 squarings).
        @inline(__always)
        var doubled: Completed {
            let xx = x.squared()
            let yy = y.squared()
            let zz = z.squared()
            let b = zz + zz
            let aa = (x + y).squared()
            let sum = yy + xx
            let difference = yy - xx
            return Completed(x: aa - sum, y: sum, z: difference, t: b - difference)
        }

        /// The 32-byte encoding of RFC 8032 section 5.1.2: y little-endian, the sign of x in bit 255.
        /// Constant time (the inversion runs a fixed chain).
        var encoded: [UInt8] {
            let inverse = z.inverted()
            let affineX = x * inverse, affineY = y * inverse
            var bytes = affineY.bytes
            bytes[31] |= UInt8(truncatingIfNeeded: affineX.isNegative << 7)
            return bytes
        }
    }

    /// ((X : Z), (Y : T)): the result of an addition or doubling, x = X/Z and y = Y/T.
    struct Completed: Sendable {
        var x, y, z, t: FieldElement25519

        /// The point in projective coordinates (3 multiplications).
        @inline(__always)
        var projective: Projective { Projective(x: x * t, y: y * z, z: z * t) }

        /// The point in extended coordinates (4 multiplications).
        @inline(__always)
        var extended: EdwardsPoint { EdwardsPoint(x: x * t, y: y * z, z: z * t, t: x * y) }
    }

    /// (Y+X, Y-X, Z, 2d·T): a point ready to be added.
    struct Cached: Sendable {
        var yPlusX, yMinusX, z, t2d: FieldElement25519
    }

    /// (y+x, y-x, 2d·x·y), Z = 1: a point of a precomputed table.
    struct Affine: Sendable {
        var yPlusX, yMinusX, xy2d: FieldElement25519

        /// The neutral element (1, 1, 0).
        static let identity = Affine(yPlusX: .one, yMinusX: .one, xy2d: .zero)

        /// The affine form of `point` (one inversion).
        init(_ point: EdwardsPoint) {
            let inverse = point.z.inverted()
            let x = point.x * inverse, y = point.y * inverse
            self.init(yPlusX: y + x, yMinusX: y - x, xy2d: x * y * .d2)
        }

        init(yPlusX: FieldElement25519, yMinusX: FieldElement25519, xy2d: FieldElement25519) {
            (self.yPlusX, self.yMinusX, self.xy2d) = (yPlusX, yMinusX, xy2d)
        }

        /// Sets self to `other` when `bit` is 1, by masking.
        @inline(__always)
        mutating func assign(_ other: Affine, if bit: UInt64) {
            yPlusX.assign(other.yPlusX, if: bit)
            yMinusX.assign(other.yMinusX, if: bit)
            xy2d.assign(other.xy2d, if: bit)
        }

        /// -self when `bit` is 1, self when 0: swaps y+x and y-x and negates 2d·x·y, by masking.
        @inline(__always)
        func negated(if bit: UInt64) -> Affine {
            var result = self
            result.assign(Affine(yPlusX: yMinusX, yMinusX: yPlusX, xy2d: xy2d.negated), if: bit)
            return result
        }
    }
}
