/// The 64-bit identity of one replica of a space.
///
/// A replica ID is chosen at random when a node is created, persisted with it, and never reused:
/// a node restored without its op log gets a new one. Within an op ID it breaks ties between ops
/// that carry the same Lamport counter.
package struct ReplicaID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw 64-bit value.
    package var rawValue: UInt64

    /// Wraps a raw 64-bit value.
    package init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Wraps a raw 64-bit value.
    package init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Derives a stable replica ID from a name (64-bit FNV-1a), as the simulator does for replica names.
    package init(deriving name: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        self.rawValue = hash
    }

    package static func < (lhs: ReplicaID, rhs: ReplicaID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// Sixteen lowercase hex digits.
    package var description: String {
        let hex = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Parses sixteen (or fewer) hex digits, as printed by `description`.
    package init?(_ text: some StringProtocol) {
        guard !text.isEmpty, text.count <= 16, let value = UInt64(text, radix: 16) else { return nil }
        self.rawValue = value
    }
}
