import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// The example frames of protocol.md, decoded and re-encoded byte for byte, and the example
/// handshake and first records reproduced with the document's fixed keys, so that the document and
/// the code cannot drift apart.
@Suite("Golden frames of protocol.md")
struct GoldenFrameTests {
    static let protocolDocument = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol.md")

    /// The example's space: secret "example secret", client "alice", server "bob".
    static let secret = Array("example secret".utf8)
    static let alice = ReplicaID(0x0102_0304_0506_0708)
    static let bob = ReplicaID(0x1112_1314_1516_1718)

    /// A fixed key of the example: SHA-256 of "GallerySync golden " + `label` (protocol.md, section 16).
    static func key(_ label: String) -> X25519.PrivateKey {
        try! X25519.PrivateKey(rawRepresentation: SHA256.hash(Array("GallerySync golden \(label)".utf8)))
    }

    static var aliceSettings: HandshakeSettings {
        HandshakeSettings(secret: secret, staticKey: key("initiator static"), replica: alice, name: "alice")
    }
    static var bobSettings: HandshakeSettings {
        HandshakeSettings(secret: secret, staticKey: key("responder static"), replica: bob, name: "bob")
    }

    /// Frames shown in the clear: the handshake's `hello` and `error`, and the frames as they are
    /// inside the sealed records (every frame after the handshake travels only inside records).
    /// The three ops of the `ops` example (and of the first `ops_compact` example).
    static var exampleOps: [Op] {
        let item = OpID(counter: 2, replica: alice)
        return [
            Op(id: OpID(counter: 1, replica: alice), previous: 0, action: .createGallery(name: "alice")),
            Op(id: item, previous: 1, action: .insert(
                gallery: "alice", after: nil, before: nil,
                items: [ItemDraft(fields: [.title: .text("venice.png"), .aspectRatio: .number(1.5)])])),
            Op(id: OpID(counter: 3, replica: alice), previous: 2, action: .move(
                item: item, gallery: "alice", after: nil, before: nil)),
        ]
    }

    /// The ops of the second `ops_compact` example: bob renames alice's item and moves it.
    static var nextCompactOps: [Op] {
        let item = OpID(counter: 2, replica: alice)
        return [
            Op(id: OpID(counter: 4, replica: bob), previous: 0, action: .update(item: item, field: .title, value: .text("rialto.png"))),
            Op(id: OpID(counter: 5, replica: bob), previous: 4, action: .move(item: item, gallery: "alice", after: nil, before: nil)),
        ]
    }

    static var examples: [(String, Message)] {
        [
            ("hello", .hello(Hello(versions: [4]))),
            ("identity", .identity(PeerInfo(version: 4, replica: alice, maximumFrameSize: 4 << 20, name: "alice"))),
            ("syncRequest", .syncRequest(VersionVector([alice: 3, bob: 300]))),
            ("ops", .ops(exampleOps)),
            ("opsCompact", .opsCompact(exampleOps)),
            ("features", .features(.compactOps)),
            ("caughtUp", .caughtUp(VersionVector([alice: 3]))),
            ("ihave", .ihave(VersionVector([alice: 3]))),
            ("graft", .graft(VersionVector([alice: 3, bob: 300]), origins: [bob])),
            ("prune", .prune([bob])),
            ("versionDigest", .versionDigest(.digest(VersionDigest.of(VersionVector([alice: 3, bob: 300]))))),
            ("versionDigestSpeaks", .versionDigest(.speaks)),
            ("versionDigestDiffers", .versionDigest(.differs)),
            ("tree", .tree(TreeBeacon(root: alice, since: 1_700_000_000_000, round: 1_700_000_010_000, hops: 2, parent: bob))),
            ("ihaveTotal", .ihaveTotal(VersionVector([alice: 3, bob: 300]).total)),
            ("heartbeat", .heartbeat),
            ("error", .error(code: .authFailed, message: "wrong secret")),
            ("fetch", .fetch(FetchRequest(id: 7, hash: SHA256.hash(Array("abc".utf8)), offset: 0, length: 262_144))),
            ("chunk", .chunk(Chunk(id: 7, offset: 0, total: 3, data: Array("abc".utf8)))),
            ("fetchError", .fetchError(id: 7, code: .notFound, message: "no such blob here")),
            ("cancel", .cancel(id: 7)),
            ("addresses", .addresses(AddressAnnouncement(
                listen: [WireAddress(host: "127.0.0.1", port: 7001)],
                members: [AddressAnnouncement.Member(
                    id: "carol", name: "carol", age: 42, addresses: [WireAddress(host: "10.0.0.3", port: 7003)])]))),
        ]
    }

    /// The example connection, run with the fixed keys: the three handshake frames, then the first
    /// record each way (each side's sealed `identity`). Also returns both sides' results.
    static func exampleTranscript() throws -> (frames: [(String, [UInt8])], client: HandshakeResult, server: HandshakeResult) {
        var client = ClientHandshake(settings: aliceSettings, expectedNode: nil, ephemeralKey: key("initiator ephemeral"))
        var server = ServerHandshake(settings: bobSettings, ephemeralKey: key("responder ephemeral"))
        let opening = try client.start()
        guard opening.count == 2, case .wait = try server.receive(opening[0]),
              case .send(let second) = try server.receive(opening[1]),
              case .finish(let third, let clientResult) = try client.receive(second),
              case .finish(let serverResult) = try server.receive(third) else {
            throw HandshakeFailure(.internalError, "the example handshake did not complete")
        }
        var aliceSealer = RecordSealer(clientResult.sending)
        var bobSealer = RecordSealer(serverResult.sending)
        let aliceRecord = try aliceSealer.seal(Message.identity(aliceSettings.info(version: 4)).frame.encoded)
        let bobRecord = try bobSealer.seal(Message.identity(bobSettings.info(version: 4)).frame.encoded)
        return ([("noise1", opening[1].frame.encoded), ("noise2", second.frame.encoded), ("noise3", third.frame.encoded),
                 ("recordAlice", aliceRecord), ("recordBob", bobRecord)], clientResult, serverResult)
    }

    /// The hex blocks of protocol.md that follow a `<!-- golden: NAME -->` marker.
    static func documentedFrames() throws -> [String: [UInt8]] {
        let text = try String(contentsOf: protocolDocument, encoding: .utf8)
        var frames: [String: [UInt8]] = [:]
        var pending: String?
        var hex = ""
        var inBlock = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- golden: "), let name = line.split(separator: " ").dropFirst(2).first {
                pending = String(name)
            } else if let name = pending, line.hasPrefix("```") {
                if inBlock {
                    frames[name] = stride(from: 0, to: hex.count, by: 2).map {
                        let start = hex.index(hex.startIndex, offsetBy: $0)
                        return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
                    }
                    pending = nil
                    hex = ""
                }
                inBlock.toggle()
            } else if inBlock {
                hex += line.filter(\.isHexDigit)
            }
        }
        return frames
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    @Test("Every example frame decodes to its message and re-encodes to the same bytes")
    func goldenFrames() throws {
        let documented = try Self.documentedFrames()
        for (name, message) in Self.examples {
            let encoded = message.frame.encoded
            guard let bytes = documented[name] else {
                Issue.record("protocol.md lacks golden frame \(name): \(Self.hex(encoded))")
                continue
            }
            #expect(bytes == encoded, "\(name): the code sends \(Self.hex(encoded))")
            var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
            decoder.append(bytes)
            let frame = try #require(try decoder.next())
            #expect(decoder.bufferedCount == 0, "\(name)")
            #expect(try Message(frame: frame) == message, "\(name)")
            #expect(try Message(frame: frame).frame.encoded == bytes, "\(name)")
        }
    }

    @Test("The second ops_compact example decodes with the tables the first left, and only with them")
    func compactOpsTables() throws {
        let documented = try Self.documentedFrames()
        var sender = CompactOpTables(), receiver = CompactOpTables()
        let first = Message.opsCompact(Self.exampleOps).frame(compactTables: &sender)
        #expect(first.encoded == documented["opsCompact"])
        let next = Message.opsCompact(Self.nextCompactOps).frame(compactTables: &sender)
        guard let bytes = documented["opsCompactNext"] else {
            Issue.record("protocol.md lacks golden frame opsCompactNext: \(Self.hex(next.encoded))")
            return
        }
        #expect(next.encoded == bytes, "the code sends \(Self.hex(next.encoded))")
        #expect(sender.replicas == [Self.alice, Self.bob] && sender.galleries == ["alice"])
        var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
        decoder.append(try #require(documented["opsCompact"]) + bytes)
        #expect(try Message(frame: try #require(try decoder.next()), compactTables: &receiver) == .opsCompact(Self.exampleOps))
        let nextFrame = try #require(try decoder.next())
        #expect(try Message(frame: nextFrame, compactTables: &receiver) == .opsCompact(Self.nextCompactOps))
        #expect(receiver.replicas == sender.replicas && receiver.galleries == sender.galleries)
        // Alone (with empty tables), its indices point past the tables: a malformed frame.
        #expect(throws: WireError.malformed("opsCompact: invalid replica index 2 past a table of 1")) {
            try Message(frame: nextFrame)
        }
        // Canonical and compact frames carry the same ops; the compact ones are shorter.
        #expect(first.payload.count < Message.ops(Self.exampleOps).frame.payload.count)
    }

    @Test("The example handshake and first records match protocol.md byte for byte, and open to both identities")
    func exampleHandshake() throws {
        let documented = try Self.documentedFrames()
        let (frames, client, server) = try Self.exampleTranscript()
        for (name, bytes) in frames {
            #expect(documented[name] == bytes, "\(name): the code sends \(Self.hex(bytes))")
        }
        #expect(client.handshakeHash == server.handshakeHash)
        #expect(client.remoteKey == Self.bobSettings.staticKey.publicKey && server.remoteKey == Self.aliceSettings.staticKey.publicKey)
        let documentedHash = try Self.documentedHandshakeHash()
        #expect(SHA256.hex(client.handshakeHash) == documentedHash, "handshake hash: \(SHA256.hex(client.handshakeHash))")
        // The documented records open with the peer's keys into the identity frames.
        var outer = FrameDecoder(maximumPayload: RecordOpener.maximumRecord)
        outer.append(try #require(documented["recordAlice"]))
        let aliceRecord = try #require(try outer.next())
        #expect(aliceRecord.knownType == .record)
        var bobOpener = RecordOpener(server.receiving, maximumPayload: Int(FrameLimits.maximum))
        let inner = try bobOpener.open(aliceRecord.payload)
        #expect(inner.count == 1)
        #expect(try inner.first.map(Message.init(frame:)) == .identity(Self.aliceSettings.info(version: 4)))
        #expect(inner.first?.encoded == documented["identity"])
    }

    @Test("The node IDs of section 4.1's example are the digests of alice's and bob's public keys")
    func exampleNodeIDs() throws {
        let text = try String(contentsOf: Self.protocolDocument, encoding: .utf8)
        let alice = NodeID(key: Self.aliceSettings.staticKey.publicKey), bob = NodeID(key: Self.bobSettings.staticKey.publicKey)
        #expect(text.contains("alice (public key `8d188e2a...b831784f`) is `\(alice)`, bob's `\(bob)`"), "alice \(alice), bob \(bob)")
        #expect(alice.rawValue.count == 16 && alice.rawValue.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })
    }

    /// The handshake hash printed in protocol.md ("handshake hash: HEX").
    static func documentedHandshakeHash() throws -> String? {
        let text = try String(contentsOf: protocolDocument, encoding: .utf8)
        return text.split(separator: "\n").first { $0.hasPrefix("handshake hash: ") }.map { String($0.dropFirst(16)) }
    }

    @Test("A flipped bit anywhere in a documented record makes it fail to open")
    func recordBitFlips() throws {
        let (frames, _, server) = try Self.exampleTranscript()
        let record = try #require(frames.first { $0.0 == "recordAlice" }?.1)
        for bit in FrameLimits.headerSize * 8..<record.count * 8 {
            var flipped = Array(record[FrameLimits.headerSize...])
            flipped[bit / 8 - FrameLimits.headerSize] ^= 1 << UInt8(bit % 8)
            var opener = RecordOpener(server.receiving, maximumPayload: Int(FrameLimits.maximum))
            #expect(throws: SecureChannelError.self, "bit \(bit)") { _ = try opener.open(flipped) }
        }
    }
}
