import Foundation
import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// The example frames of protocol.md, decoded and re-encoded byte for byte, so that the document
/// and the code cannot drift apart.
@Suite("Golden frames of protocol.md")
struct GoldenFrameTests {
    static let protocolDocument = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol.md")

    /// The handshake of the example: secret "example secret", client "alice", server "bob".
    static let secret = Array("example secret".utf8)
    static let alice = ReplicaID(0x0102_0304_0506_0708)
    static let bob = ReplicaID(0x1112_1314_1516_1718)
    static let clientNonce = (0..<32).map { UInt8($0) }
    static let serverNonce = (0..<32).map { UInt8(0xA0 + $0) }

    static var examples: [(String, Message)] {
        let transcript = HandshakeTranscript(
            version: 2, clientNonce: clientNonce, serverNonce: serverNonce, clientReplica: alice, serverReplica: bob)
        let item = OpID(counter: 2, replica: alice)
        return [
            ("hello", .hello(Hello(versions: [2], replica: alice, nonce: clientNonce, maximumFrameSize: 4 << 20, name: "alice"))),
            ("welcome", .welcome(Welcome(version: 2, replica: bob, nonce: serverNonce, maximumFrameSize: 4 << 20, name: "bob"))),
            ("auth", .auth(proof: transcript.proof(for: .client, secret: secret))),
            ("authOK", .authOK(proof: transcript.proof(for: .server, secret: secret))),
            ("syncRequest", .syncRequest(VersionVector([alice: 3, bob: 300]))),
            ("ops", .ops([
                Op(id: OpID(counter: 1, replica: alice), previous: 0, action: .createGallery(name: "alice")),
                Op(id: item, previous: 1, action: .insert(
                    gallery: "alice", after: nil, before: nil,
                    items: [ItemDraft(fields: [.title: .text("venice.png"), .aspectRatio: .number(1.5)])])),
                Op(id: OpID(counter: 3, replica: alice), previous: 2, action: .move(
                    item: item, gallery: "alice", after: nil, before: nil)),
            ])),
            ("caughtUp", .caughtUp(VersionVector([alice: 3]))),
            ("ihave", .ihave(VersionVector([alice: 3]))),
            ("graft", .graft(VersionVector([alice: 3, bob: 300]), origins: [bob])),
            ("prune", .prune([bob])),
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

    /// The examples sent during the handshake, in the plain layout; every other example is a frame
    /// sent after it, with its CRC-32 trailer. (The `error` example, `auth_failed`, ends a handshake.)
    static let handshakeExamples: Set<String> = ["hello", "welcome", "auth", "authOK", "error"]

    /// An example as sent: plain during the handshake, with its checksum trailer after it.
    static func wireBytes(_ name: String, _ message: Message) -> [UInt8] {
        message.frame.encoded(checksummed: !handshakeExamples.contains(name))
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
            } else if pending != nil && line.hasPrefix("```") {
                if inBlock {
                    frames[pending!] = stride(from: 0, to: hex.count, by: 2).map {
                        let start = hex.index(hex.startIndex, offsetBy: $0)
                        return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
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

    @Test("Every example frame decodes to its message and re-encodes to the same bytes")
    func goldenFrames() throws {
        let documented = try Self.documentedFrames()
        for (name, message) in Self.examples {
            let encoded = Self.wireBytes(name, message)
            let hex = encoded.map { String(format: "%02x", $0) }.joined(separator: " ")
            guard let bytes = documented[name] else {
                Issue.record("protocol.md lacks golden frame \(name): \(encoded.map { String(format: "%02x", $0) }.joined())")
                continue
            }
            #expect(bytes == encoded, "\(name): the code sends \(hex)")
            var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
            decoder.checksummed = !Self.handshakeExamples.contains(name)
            decoder.append(bytes)
            let frame = try #require(try decoder.next())
            #expect(decoder.bufferedCount == 0, "\(name)")
            #expect(try Message(frame: frame) == message, "\(name)")
            #expect(Self.wireBytes(name, try Message(frame: frame)) == bytes, "\(name)")
        }
    }

    @Test("The example handshake authenticates both sides")
    func exampleHandshake() throws {
        let client = HandshakeSettings(secret: Self.secret, replica: Self.alice, name: "alice")
        let server = HandshakeSettings(secret: Self.secret, replica: Self.bob, name: "bob")
        var clientSide = ClientHandshake(settings: client, nonce: Self.clientNonce)
        var serverSide = ServerHandshake(settings: server, nonce: Self.serverNonce)
        #expect(clientSide.hello == Self.examples[0].1)
        guard case .send(let welcome) = try serverSide.receive(clientSide.hello) else { Issue.record("no welcome"); return }
        #expect(welcome == Self.examples[1].1)
        guard case .send(let auth) = try clientSide.receive(welcome) else { Issue.record("no auth"); return }
        #expect(auth == Self.examples[2].1)
        guard case .sendAndFinish(let ok, let clientIdentity) = try serverSide.receive(auth) else { Issue.record("no auth_ok"); return }
        #expect(ok == Self.examples[3].1)
        #expect(clientIdentity.replica == Self.alice && clientIdentity.name == "alice")
        guard case .done(let serverIdentity) = try clientSide.receive(ok) else { Issue.record("not done"); return }
        #expect(serverIdentity.replica == Self.bob && serverIdentity.version == 2)
    }

    @Test("A flipped bit anywhere in a frame after the handshake fails its checksum; a frame without trailer is refused")
    func checksumCatchesEveryBitFlip() throws {
        for (name, message) in Self.examples where !Self.handshakeExamples.contains(name) {
            let bytes = Self.wireBytes(name, message)
            // Every bit of the type, flags, payload and trailer (a flipped length bit either asks
            // for more bytes or fails the check once they come, or exceeds the limit).
            for bit in (FrameLimits.headerSize - 2) * 8..<bytes.count * 8 {
                var flipped = bytes
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
                decoder.checksummed = true
                decoder.append(flipped)
                #expect(throws: WireError.self, "\(name), bit \(bit)") { _ = try decoder.next() }
            }
            var plain = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
            plain.checksummed = true
            plain.append(message.frame.encoded + Message.heartbeat.frame.encoded)
            #expect(throws: WireError.self, "\(name) without its trailer") { _ = try plain.next() }
        }
    }
}
