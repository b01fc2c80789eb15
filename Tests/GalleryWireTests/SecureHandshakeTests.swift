import GalleryCrypto
import GalleryModel
@testable import GalleryWire
import Testing

/// The version 3 handshake state machines and the record layer, without sockets.
@Suite("Noise handshake and sealed records")
struct SecureHandshakeTests {
    static let secret = Array("handshake secret".utf8)

    static func settings(_ name: String, secret: [UInt8] = secret, key: X25519.PrivateKey = X25519.PrivateKey()) -> HandshakeSettings {
        HandshakeSettings(secret: secret, staticKey: key, replica: ReplicaID(deriving: name), name: name)
    }

    /// Expects `body` to throw a `HandshakeFailure` with `code`.
    static func expectFailure<T>(_ code: ErrorCode, _ label: String, sourceLocation: SourceLocation = #_sourceLocation,
                                 _ body: () throws -> T) {
        do {
            let step = try body()
            Issue.record("\(label): expected \(code), got \(step)", sourceLocation: sourceLocation)
        } catch let failure as HandshakeFailure {
            #expect(failure.code == code, "\(label): \(failure.reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(label): expected a HandshakeFailure, got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Runs a handshake to its end; nil results when it failed (the failure is thrown).
    static func handshake(client: HandshakeSettings, server: HandshakeSettings, expectedNode: NodeID? = nil)
        throws -> (client: HandshakeResult, server: HandshakeResult, third: Message) {
        var clientSide = ClientHandshake(settings: client, expectedNode: expectedNode)
        var serverSide = ServerHandshake(settings: server)
        let opening = try clientSide.start()
        guard case .wait = try serverSide.receive(opening[0]), case .send(let second) = try serverSide.receive(opening[1]) else {
            throw HandshakeFailure(.internalError, "no message 2")
        }
        guard case .finish(let third, let clientResult) = try clientSide.receive(second) else { throw HandshakeFailure(.internalError, "no 3") }
        guard case .finish(let serverResult) = try serverSide.receive(third) else { throw HandshakeFailure(.internalError, "no finish") }
        return (clientResult, serverResult, third)
    }

    @Test("Both sides agree on keys and see each other's static key; the hello carries nothing but versions")
    func handshakeCompletes() throws {
        let alice = Self.settings("alice"), bob = Self.settings("bob")
        let (client, server, _) = try Self.handshake(client: alice, server: bob)
        #expect(client.handshakeHash == server.handshakeHash && client.version == 4 && server.version == 4)
        #expect(client.remoteKey == bob.staticKey.publicKey && server.remoteKey == alice.staticKey.publicKey)
        let hello = ClientHandshake(settings: alice).hello
        #expect(hello == .hello(Hello(versions: [4])))
        #expect(!hello.frame.payload.contains { $0 != 0 && ![0x47, 0x53, 0x59, 0x4e, 1, 4].contains($0) })
    }

    @Test("A client without the space's secret is refused at message 3 with auth_failed, and a fake server cannot finish")
    func wrongSecret() throws {
        let intruder = Self.settings("mallory", secret: Array("not the secret".utf8))
        Self.expectFailure(.authFailed, "client with the wrong secret") { try Self.handshake(client: intruder, server: Self.settings("bob")) }
        Self.expectFailure(.authFailed, "server with the wrong secret") { try Self.handshake(client: Self.settings("alice"), server: intruder) }
    }

    @Test("Version refusal: a version 2 hello gets unsupported_version; a hello changed on the path fails the handshake")
    func versions() throws {
        var server = ServerHandshake(settings: Self.settings("bob"))
        let v2Hello = Message.hello(Hello(versions: [2], replica: ReplicaID(7), nonce: [UInt8](repeating: 1, count: 32),
                                          maximumFrameSize: 1 << 20, name: "old"))
        Self.expectFailure(.unsupportedVersion, "v2 hello") { try server.receive(v2Hello) }
        // A hello rewritten on the path (an extra version offered): the prologue differs, so the
        // client refuses message 2.
        // Message 1's (empty) payload is sealed under the prologue, so the server notices at once.
        var client = ClientHandshake(settings: Self.settings("alice"))
        var relayed = ServerHandshake(settings: Self.settings("bob"))
        let opening = try client.start()
        _ = try relayed.receive(.hello(Hello(versions: [3, 4])))
        Self.expectFailure(.authFailed, "rewritten hello") { try relayed.receive(opening[1]) }
    }

    @Test("A dialer that expects a key refuses another one after message 2, before sending its own static key")
    func expectedNode() throws {
        let bob = Self.settings("bob")
        _ = try Self.handshake(client: Self.settings("alice"), server: bob, expectedNode: NodeID(key: bob.staticKey.publicKey))
        Self.expectFailure(.identityMismatch, "impostor") {
            try Self.handshake(client: Self.settings("alice"), server: Self.settings("bob"), expectedNode: NodeID(key: bob.staticKey.publicKey))
        }
    }

    @Test("Out-of-order messages, a replayed message 3 and a second hello are refused")
    func outOfOrder() throws {
        let alice = Self.settings("alice"), bob = Self.settings("bob")
        var server = ServerHandshake(settings: bob)
        Self.expectFailure(.protocolError, "Noise message before hello") { try server.receive(.noiseHandshake([UInt8](repeating: 9, count: 32))) }
        var twice = ServerHandshake(settings: bob)
        _ = try twice.receive(ClientHandshake(settings: alice).hello)
        Self.expectFailure(.protocolError, "hello twice") { try twice.receive(ClientHandshake(settings: alice).hello) }
        for message in [Message.heartbeat, .syncRequest(VersionVector()), .identity(alice.info(version: 4)), .record([1, 2, 3])] {
            var fresh = ServerHandshake(settings: bob)
            Self.expectFailure(.protocolError, "\(message.type) first") { try fresh.receive(message) }
            var client = ClientHandshake(settings: alice)
            _ = try client.start()
            Self.expectFailure(.protocolError, "\(message.type) to a client") { try client.receive(message) }
        }
        // Message 3 recorded from one handshake, replayed into another: a new ephemeral key.
        let (_, _, recorded) = try Self.handshake(client: alice, server: bob)
        var client = ClientHandshake(settings: alice)
        var second = ServerHandshake(settings: bob)
        let opening = try client.start()
        _ = try second.receive(opening[0])
        _ = try second.receive(opening[1])
        Self.expectFailure(.authFailed, "replayed message 3") { try second.receive(recorded) }
        var reported = ServerHandshake(settings: bob)
        Self.expectFailure(.shuttingDown, "peer error") { try reported.receive(.error(code: .shuttingDown, message: "bye")) }
    }

    @Test("A node name cut to 255 bytes stays at most 255 bytes of UTF-8, so its identity decodes")
    func longNameTruncation() throws {
        let name = String(repeating: "a", count: 254) + "€"
        let settings = Self.settings(name)
        #expect(settings.name.utf8.count <= 255)
        #expect(throws: Never.self) { try Message(frame: Message.identity(settings.info(version: 4)).frame) }
    }

    // MARK: Records

    /// A sealer and the matching opener, after a real handshake.
    static func channel(rekeyInterval: UInt64 = RecordSealer.defaultRekeyInterval, openerRekeyInterval: UInt64? = nil) throws -> (RecordSealer, RecordOpener) {
        let (client, server, _) = try handshake(client: settings("alice"), server: settings("bob"))
        return (RecordSealer(client.sending, rekeyInterval: rekeyInterval),
                RecordOpener(server.receiving, maximumPayload: Int(FrameLimits.maximum), rekeyInterval: openerRekeyInterval ?? rekeyInterval))
    }

    /// The record frames in `bytes`.
    static func records(_ bytes: [UInt8]) throws -> [Frame] {
        var decoder = FrameDecoder(maximumPayload: RecordOpener.maximumRecord)
        decoder.append(bytes)
        var frames: [Frame] = []
        while let frame = try decoder.next() { frames.append(frame) }
        #expect(decoder.bufferedCount == 0)
        return frames
    }

    @Test("A frame larger than a Noise message is split into records and comes out whole; small frames share a record")
    func largeFrames() throws {
        var (sealer, opener) = try Self.channel()
        let big = Message.chunk(Chunk(id: 1, offset: 0, total: 300_000, data: (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        let small = [Message.heartbeat, .cancel(id: 3)]
        let plaintext = big.frame.encoded + small.flatMap(\.frame.encoded)
        let records = try Self.records(try sealer.seal(plaintext))
        #expect(records.count == (plaintext.count + RecordSealer.maximumPlaintext - 1) / RecordSealer.maximumPlaintext)
        #expect(records.allSatisfy { $0.knownType == .record && $0.payload.count <= RecordOpener.maximumRecord })
        var received: [Message] = []
        for record in records { received += try opener.open(record.payload).map(Message.init(frame:)) }
        #expect(received == [big] + small)
        #expect(!records.contains { record in record.payload.count > 64 && record.payload.prefix(64) == plaintext.prefix(64) })
    }

    @Test("Rekeying every 3 records: both sides cross many rekeys in step; a record from before a rekey does not open after it")
    func rekeyCrossing() throws {
        var (sealer, opener) = try Self.channel(rekeyInterval: 3)
        var sealed: [[UInt8]] = []
        for index in 0..<20 {
            let records = try Self.records(try sealer.seal(Message.cancel(id: UInt64(index)).frame.encoded))
            sealed.append(records[0].payload)
            #expect(try opener.open(records[0].payload).map(Message.init(frame:)) == [.cancel(id: UInt64(index))])
        }
        // A receiver that does not rekey at the same record fails at the first record after the rekey.
        var (rekeying, stale) = try Self.channel(rekeyInterval: 3, openerRekeyInterval: 1 << 16)
        for index in 0..<3 {
            let record = try Self.records(try rekeying.seal(Message.cancel(id: UInt64(index)).frame.encoded))[0]
            _ = try stale.open(record.payload)
        }
        let afterRekey = try Self.records(try rekeying.seal(Message.heartbeat.frame.encoded))[0]
        #expect(throws: SecureChannelError.self) { _ = try stale.open(afterRekey.payload) }
    }

    @Test("A flipped, dropped, replayed, reordered or injected record is rejected, and nothing opens after it")
    func tampering() throws {
        let messages = (0..<4).map { Message.cancel(id: UInt64($0)) }
        // Each case: how the records are tampered with, and how many genuine records open before it.
        var cases: [(String, ([Frame]) -> [[UInt8]])] = [
            ("flipped", { records in var bytes = records.map(\.payload); bytes[1][5] ^= 0x10; return bytes }),
            ("dropped", { records in [records[0].payload, records[2].payload, records[3].payload] }),
            ("replayed", { records in [records[0].payload, records[1].payload, records[1].payload, records[2].payload] }),
            ("reordered", { records in [records[0].payload, records[2].payload, records[1].payload, records[3].payload] }),
            ("truncated", { records in [records[0].payload, Array(records[1].payload.prefix(10))] }),
        ]
        cases.append(("injected", { records in
            // Sealed under the keys of another connection (an attacker's own handshake).
            var forged = (try? Self.channel())?.0
            let injected = (try? Self.records((try? forged?.seal(Message.heartbeat.frame.encoded)) ?? [])) ?? []
            return [records[0].payload, injected.first?.payload ?? [], records[1].payload]
        }))
        for (name, tamper) in cases {
            var (sealer, opener) = try Self.channel()
            var frames: [Frame] = []
            for message in messages { frames += try Self.records(try sealer.seal(message.frame.encoded)) }
            var opened: [Message] = []
            var failed = false
            for bytes in tamper(frames) {
                do {
                    opened += try opener.open(bytes).map(Message.init(frame:))
                } catch {
                    #expect(error is SecureChannelError, "\(name): \(error)")
                    failed = true
                    // Fails closed: even the next genuine record does not open.
                    #expect(throws: SecureChannelError.self, "\(name): after the failure") { _ = try opener.open(frames[3].payload) }
                    break
                }
            }
            #expect(failed, "\(name) was not detected")
            let before = name == "replayed" ? 2 : 1
            #expect(opened == Array(messages.prefix(before)), "\(name): only the records before the damage are used")
        }
    }
}
