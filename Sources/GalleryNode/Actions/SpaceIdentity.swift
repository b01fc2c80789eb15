import GalleryCrypto

/// The public name of a space (http-api.md section 1): the first 16 bytes of
/// `SHA-256("gallerysync space id v1" || secret)` as 32 lower-case hex digits. The same on every
/// node of a space; it says nothing about the secret. Drags carry it so that a page refuses a
/// drop from another space before it happens.
package enum SpaceIdentity {
    /// The space ID of `secret`.
    package static func id(ofSecret secret: [UInt8]) -> String {
        SHA256.hex(SHA256.hash(Array("gallerysync space id v1".utf8) + secret).prefix(16))
    }

    /// The text of the space ID `space` (16 bytes), which survives changes of the secret.
    package static func id(of space: [UInt8]) -> String {
        SHA256.hex(space)
    }
}
