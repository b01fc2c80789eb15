import GalleryCrypto
import Testing

/// The bytes that the hexadecimal `text` of a test vector spells; an empty array, and a recorded
/// issue, if the fixture is malformed.
func hex(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
    guard let bytes = SHA256.bytes(hex: text) else {
        Issue.record("malformed hex in a fixture: \(text.prefix(40))", sourceLocation: sourceLocation)
        return []
    }
    return bytes
}

/// `bytes` as lowercase hexadecimal.
func hex(_ bytes: [UInt8]) -> String {
    SHA256.hex(bytes)
}
