/// The seal of a signed op (protocol.md, "Signed ops"): bit 7 of the op's kind byte says that
/// one follows the op's body.
///
/// ```
/// seal = flags:u8 (bit 0: key claim, bit 1: signature; other bits 0, and not both 0)
///        [publicKey:32 salt:u64]      when bit 0; only on a replica's first op (gap = counter)
///        [signature:64]               when bit 1
/// ```
extension OpCodec {
    /// Bit 7 of an op's kind byte: a seal follows the body.
    static let sealedKindFlag: UInt8 = 0x80
    private static let keyClaimFlag: UInt8 = 0x01
    private static let signatureFlag: UInt8 = 0x02
    /// The flags of a seal that is a signature alone (every seal but a replica's first op's).
    static let signatureOnlySealFlags: UInt8 = signatureFlag

    /// Appends a seal that is not empty.
    static func encode(_ seal: OpSeal, into writer: inout some ByteSink) {
        writer.byte((seal.keyClaim == nil ? 0 : keyClaimFlag) | (seal.signature == nil ? 0 : signatureFlag))
        if let claim = seal.keyClaim {
            claim.publicKey.withUnsafeBytes { writer.bytes($0) }
            writer.fixed64(claim.salt)
        }
        if let signature = seal.signature { signature.withUnsafeBytes { writer.bytes($0) } }
    }

    /// Reads a seal; a key claim is allowed only on a replica's first op.
    static func decodeSeal(from reader: inout ByteReader, firstOfReplica: Bool) throws(DecodingError) -> OpSeal {
        let flags = try reader.byte()
        guard flags & ~(keyClaimFlag | signatureFlag) == 0, flags != 0 else { throw .invalidValue("seal flags \(flags)") }
        var seal = OpSeal()
        if flags & keyClaimFlag != 0 {
            guard firstOfReplica else { throw .invalidValue("a key claim on an op that is not its replica's first") }
            let key = Array(try reader.bytes(OpSeal.publicKeyBytes))
            seal.keyClaim = OpSeal.KeyClaim(publicKey: key, salt: try reader.fixed64())
        }
        if flags & signatureFlag != 0 { seal.signature = Array(try reader.bytes(OpSeal.signatureBytes)) }
        return seal
    }

    /// Steps over a seal (the compact transcoder copies it as it is).
    static func skipSeal(in reader: inout ByteReader) throws(DecodingError) {
        let flags = try reader.byte()
        guard flags & ~(keyClaimFlag | signatureFlag) == 0, flags != 0 else { throw .invalidValue("seal flags \(flags)") }
        if flags & keyClaimFlag != 0 { _ = try reader.bytes(OpSeal.publicKeyBytes + 8) }
        if flags & signatureFlag != 0 { _ = try reader.bytes(OpSeal.signatureBytes) }
    }

    /// The canonical encoding of `op` without its seal: what its author's chain hashes, and what
    /// two copies of one op are compared in.
    package static func unsealedEncoding(of op: Op) -> [UInt8] {
        var writer = ByteWriter(capacity: maxEncodedSize(of: op))
        var names = CanonicalOpNames()
        encode(op, into: &writer, names: &names, withSeal: false)
        return writer.bytes
    }

    /// Calls `body` with the canonical encoding of `op` without its seal (`unsealedEncoding(of:)`),
    /// written into temporary memory: no array is made for it.
    package static func withUnsealedEncoding<Result>(of op: Op, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let capacity = maxEncodedSize(of: op)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = RawByteWriter(base: buffer.baseAddress!, capacity: capacity)
            var names = CanonicalOpNames()
            encode(op, into: &writer, names: &names, withSeal: false)
            return body(UnsafeRawBufferPointer(start: buffer.baseAddress!, count: writer.count))
        }
    }

    /// Whether `stored`, one op's encoding, is `unsealed` (an op's encoding without seal) with or
    /// without a seal after it.
    static func isSameOp(stored: some Collection<UInt8>, unsealed: [UInt8]) -> Bool {
        guard stored.count >= unsealed.count, let first = stored.first, !unsealed.isEmpty else { return false }
        guard first & ~sealedKindFlag == unsealed[0] else { return false }
        if first & sealedKindFlag == 0 && stored.count != unsealed.count { return false }
        return stored.dropFirst().prefix(unsealed.count - 1).elementsEqual(unsealed.dropFirst())
    }
}
