import GalleryModel

/// The size of an op log in the binary encoding, for the `bytes` field of the results.
enum EncodedLog {
    /// The number of bytes `ops` take encoded; nil while no encoding exists.
    static func byteCount(of ops: [Op]) -> Int? {
        // TODO: `OpCodec.encode(ops).count` once GalleryModel/Encoding has the codec.
        nil
    }
}
