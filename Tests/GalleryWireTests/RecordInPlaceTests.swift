import GalleryCrypto
import GalleryModel
import GallerySimulation
@testable import GalleryWire
import Testing

/// The record layer seals and opens in place (one output buffer, no array per record): its bytes
/// must be exactly those of sealing each piece on its own with `NoiseCipherState`'s array API, and
/// its refusals those of before.
@Suite("Records sealed and opened in place")
struct RecordInPlaceTests {
    /// A sealer and an opener on the two ends of one direction of a fresh handshake, and a copy of
    /// the sealer's cipher state to seal the expected bytes with.
    static func channel(rekeyInterval: UInt64) throws -> (RecordSealer, RecordOpener, NoiseCipherState) {
        let (client, server, _) = try SecureHandshakeTests.handshake(client: SecureHandshakeTests.settings("alice"),
                                                                     server: SecureHandshakeTests.settings("bob"))
        return (RecordSealer(client.sending, rekeyInterval: rekeyInterval),
                RecordOpener(server.receiving, maximumPayload: Int(FrameLimits.maximum), rekeyInterval: rekeyInterval),
                client.sending)
    }

    /// `plaintext` as record frames sealed one piece at a time with the array API (the layout of
    /// protocol.md 4.2), rekeying `cipher` every `rekeyInterval` records.
    static func expectedRecords(_ plaintext: [UInt8], cipher: inout NoiseCipherState, rekeyInterval: UInt64) throws -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        while start < plaintext.count {
            let end = min(start + RecordSealer.maximumPlaintext, plaintext.count)
            let sealed = try cipher.encrypt(Array(plaintext[start..<end]), authenticating: [])
            if cipher.nonce % rekeyInterval == 0 { cipher.rekey() }
            output += Frame(.record, payload: sealed).encoded
            start = end
        }
        return output
    }

    @Test("Random frames of 0 to 200,000 bytes, rekeying every 2 records: the same bytes as piece-by-piece sealing, and they open")
    func sameBytesAsPieceByPiece() throws {
        var generator = SeededGenerator(seed: 0x4EC0_4D5)
        var (sealer, opener, reference) = try Self.channel(rekeyInterval: 2)
        let sizes = [0, 1, 5, 200, RecordSealer.maximumPlaintext - 6, RecordSealer.maximumPlaintext, 2 * RecordSealer.maximumPlaintext + 1]
            + (0..<12).map { _ in Int.random(in: 0...200_000, using: &generator) }
        for size in sizes {
            let message = Message.chunk(Chunk(id: 9, offset: 0, total: UInt64(size),
                                              data: (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            let plaintext = message.frame.encoded
            let sealed = try sealer.seal(plaintext)
            #expect(sealed == (try Self.expectedRecords(plaintext, cipher: &reference, rekeyInterval: 2)), "size \(size)")
            var received: [Message] = []
            for record in try SecureHandshakeTests.records(sealed) { received += try opener.open(record.payload).map(Message.init(frame:)) }
            #expect(received == [message], "size \(size)")
        }
        #expect(try sealer.seal([]) == [])
    }

    @Test("An empty record and one shorter than a tag are rejected, and nothing opens after them")
    func shortRecords() throws {
        for length in [0, 1, 15] {
            var (sealer, opener, _) = try Self.channel(rekeyInterval: 1 << 16)
            let genuine = try SecureHandshakeTests.records(try sealer.seal(Message.heartbeat.frame.encoded))[0]
            #expect(throws: SecureChannelError.self, "\(length) bytes") { _ = try opener.open(Array(genuine.payload.prefix(length))) }
            #expect(throws: SecureChannelError.self, "after \(length) bytes") { _ = try opener.open(genuine.payload) }
            #expect(opener.count == 0)
            #expect(opener.bufferedCount == 0)
        }
    }

    @Test("Unsealed (measurement only): records carry the frames as they are, and open")
    func unkeyed() throws {
        var sealer = RecordSealer(NoiseCipherState.unkeyed)
        var opener = RecordOpener(NoiseCipherState.unkeyed, maximumPayload: Int(FrameLimits.maximum))
        let messages = [Message.heartbeat, .cancel(id: 4), .chunk(Chunk(id: 1, offset: 0, total: 70_000, data: [UInt8](repeating: 3, count: 70_000)))]
        let plaintext = messages.flatMap(\.frame.encoded)
        let records = try SecureHandshakeTests.records(try sealer.seal(plaintext))
        #expect(records.flatMap(\.payload) == plaintext)
        var received: [Message] = []
        for record in records { received += try opener.open(record.payload).map(Message.init(frame:)) }
        #expect(received == messages)
    }
}
