import GalleryCrypto

/// The order that breaks a tie between two space keys of one generation.
enum SHA256Order {
    /// Whether SHA-256(`a`) is greater than SHA-256(`b`), bytes compared in order.
    static func greater(_ a: [UInt8], than b: [UInt8]) -> Bool {
        let (first, second) = (SHA256.hash(a), SHA256.hash(b))
        return first != second && !first.lexicographicallyPrecedes(second)
    }
}
