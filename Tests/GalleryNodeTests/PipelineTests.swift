import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Testing

/// The peer pipeline's handlers on an `InMemoryChannel`: no socket, no thread.
@Suite("Pipeline")
struct PipelineTests {
    static let secret = Array("pipeline secret".utf8)

    /// What reached the tail of a pipeline.
    final class Recorder: ChannelHandler {
        var messages: [Message] = []
        var peers: [PeerIdentity] = []
        var errors: [any Error] = []
        var inactive: [String] = []

        func channelRead(context: ChannelHandlerContext, _ data: Any) {
            if let message = data as? Message { messages.append(message) }
        }
        func userInboundEventTriggered(context: ChannelHandlerContext, _ event: Any) {
            if let completed = event as? HandshakeCompleted { peers.append(completed.peer) }
        }
        func errorCaught(context: ChannelHandlerContext, _ error: any Error) { errors.append(error) }
        func channelInactive(context: ChannelHandlerContext, reason: String) { inactive.append(reason) }
    }

    /// A server or client pipeline on an in-memory channel that drains its outbox into `written`.
    struct Harness {
        let channel: InMemoryChannel
        let outbox: PeerOutbox
        let recorder = Recorder()
        let settings: HandshakeSettings

        init(dialing: Bool, secret: [UInt8] = PipelineTests.secret, replica: UInt64 = 2,
             expectedNode: NodeID? = nil, rekeyInterval: UInt64 = RecordSealer.defaultRekeyInterval, sealed: Bool = true) {
            outbox = PeerOutbox(limit: 64 << 20)
            var settings = HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(replica),
                                             name: dialing ? "client" : "server")
            settings.sealsRecords = sealed
            self.settings = settings
            channel = InMemoryChannel(handlers: [
                FrameCodecHandler(outbox: outbox), HandshakeHandler(dialing: dialing, settings: settings, expectedNode: expectedNode),
                SecureChannelHandler(settings: settings, rekeyInterval: rekeyInterval), MessageHandler(), recorder,
            ])
            channel.source = outbox
            channel.pipeline.fireChannelActive()
        }

        /// The bytes the pipeline wrote since the last call.
        func writtenBytes() -> [UInt8] {
            channel.takeWritten([UInt8].self).flatMap { $0 }
        }
    }

    /// The test playing a client by hand against a server `Harness`: plain frames during the
    /// handshake, sealed records after it.
    struct ManualClient {
        let settings: HandshakeSettings
        var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
        var sealer: RecordSealer?
        var opener: RecordOpener?
        /// Plain frames received (handshake messages, a plaintext error).
        var plain: [Message] = []

        init(secret: [UInt8] = PipelineTests.secret) {
            settings = HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(), replica: ReplicaID(1), name: "client")
        }

        /// Runs the handshake against `server`, up to both identities.
        mutating func authenticate(_ server: Harness) throws {
            var handshake = ClientHandshake(settings: settings)
            server.channel.receive(try handshake.start().flatMap(\.frame.encoded))
            let second = try #require(try take(server.writtenBytes()).first)
            guard case .finish(let third, let result) = try handshake.receive(second) else { return }
            sealer = RecordSealer(result.sending)
            opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.maximum))
            server.channel.receive(third.frame.encoded + (try seal([.identity(settings.info(version: result.version))])))
        }

        /// Messages in `bytes`: records opened once sealed.
        mutating func take(_ bytes: [UInt8]) throws -> [Message] {
            decoder.append(bytes)
            var messages: [Message] = []
            while let frame = try decoder.next() {
                if var opener, frame.knownType == .record {
                    messages += try opener.open(frame.payload).map(Message.init(frame:))
                    self.opener = opener
                } else {
                    messages.append(try Message(frame: frame))
                }
            }
            return messages
        }

        /// `messages` as sealed records (each record a separate element when `separately`).
        mutating func seal(_ messages: [Message]) throws -> [UInt8] {
            guard var sealer else { return messages.flatMap(\.frame.encoded) }
            defer { self.sealer = sealer }
            return try sealer.seal(messages.flatMap(\.frame.encoded))
        }
    }

    /// Connects a client and a server pipeline back to back, delivering what each writes until quiet.
    static func pump(_ client: Harness, _ server: Harness) {
        while true {
            let toServer = client.writtenBytes(), toClient = server.writtenBytes()
            if toServer.isEmpty && toClient.isEmpty { return }
            if !toServer.isEmpty { server.channel.receive(toServer) }
            if !toClient.isEmpty { client.channel.receive(toClient) }
        }
    }

    @Test("A server pipeline runs the Noise handshake, learns the client's key and identity, then takes sealed messages only")
    func serverHandshakeThenMessages() throws {
        let harness = Harness(dialing: false)
        var client = ManualClient()
        try client.authenticate(harness)
        let peer = try #require(harness.recorder.peers.first)
        #expect(peer.name == "client" && peer.key == client.settings.staticKey.publicKey)
        #expect(peer.nodeID == NodeID(key: client.settings.staticKey.publicKey))
        #expect(try client.take(harness.writtenBytes()) == [.identity(harness.settings.info(version: 4))])

        harness.channel.receive(try client.seal([.heartbeat, .caughtUp(VersionVector())]))
        #expect(harness.recorder.messages == [.heartbeat, .caughtUp(VersionVector())])
        #expect(harness.recorder.errors.isEmpty)

        // Replies the pipeline writes after the handshake are sealed.
        harness.channel.pipeline.write(Message.heartbeat)
        let written = harness.writtenBytes()
        #expect(written[4] == FrameType.record.rawValue)
        #expect(try client.take(written) == [.heartbeat])

        // After the handshake an unsealed frame is refused, and nothing after it is used.
        harness.channel.receive(Message.heartbeat.frame.encoded + (try client.seal([.heartbeat])))
        #expect(harness.recorder.errors.contains { if case .unsealedFrame = $0 as? SecureChannelError { true } else { false } })
        #expect(harness.recorder.messages.count == 2)
    }

    @Test("A client pipeline sends hello and Noise message 1 as soon as the channel is active")
    func clientSendsHello() throws {
        let harness = Harness(dialing: true)
        var decoder = FrameDecoder()
        decoder.append(harness.writtenBytes())
        #expect(try decoder.next()?.knownType == .hello)
        #expect(try decoder.next()?.knownType == .noiseHandshake)
        #expect(try decoder.next() == nil)
    }

    @Test("A wrong secret fails the handshake at message 3: auth_failed in the clear, no peer is announced")
    func wrongSecret() throws {
        let harness = Harness(dialing: false)
        var client = ManualClient(secret: Array("other secret".utf8))
        try? client.authenticate(harness)
        #expect(harness.recorder.peers.isEmpty)
        #expect(harness.recorder.errors.contains { ($0 as? HandshakeFailure)?.code == .authFailed })
    }

    @Test("Two pipelines back to back: both learn the other's key; a dialer expecting another key refuses before message 3")
    func pipelinesBackToBack() throws {
        let client = Harness(dialing: true), server = Harness(dialing: false, replica: 3)
        Self.pump(client, server)
        #expect(client.recorder.peers.map(\.key) == [server.settings.staticKey.publicKey])
        #expect(server.recorder.peers.map(\.key) == [client.settings.staticKey.publicKey])

        let wary = Harness(dialing: true, expectedNode: NodeID(key: X25519.PrivateKey().publicKey)), impostor = Harness(dialing: false, replica: 3)
        Self.pump(wary, impostor)
        #expect(wary.recorder.errors.contains { ($0 as? HandshakeFailure)?.code == .identityMismatch })
        #expect(wary.recorder.peers.isEmpty && impostor.recorder.peers.isEmpty)
    }

    @Test("The unsealed measurement mode talks only to itself: against a sealing peer neither side learns the other")
    func unsealedOnlyWithUnsealed() throws {
        let plainClient = Harness(dialing: true, sealed: false), plainServer = Harness(dialing: false, replica: 3, sealed: false)
        Self.pump(plainClient, plainServer)
        #expect(plainClient.recorder.peers.count == 1 && plainServer.recorder.peers.count == 1)
        for (client, server) in [(Harness(dialing: true, sealed: false), Harness(dialing: false, replica: 3)),
                                 (Harness(dialing: true), Harness(dialing: false, replica: 3, sealed: false))] {
            Self.pump(client, server)
            #expect(client.recorder.peers.isEmpty && server.recorder.peers.isEmpty)
            #expect(!client.recorder.errors.isEmpty || !server.recorder.errors.isEmpty)
        }
    }

    @Test("Rekeying every 3 records, many messages cross both ways in step; a frame larger than a record arrives whole")
    func rekeyAndLargeFrames() throws {
        let client = Harness(dialing: true, rekeyInterval: 3), server = Harness(dialing: false, replica: 3, rekeyInterval: 3)
        Self.pump(client, server)
        for index in 0..<20 {
            client.channel.pipeline.write(Message.cancel(id: UInt64(index)))
            server.channel.pipeline.write(Message.cancel(id: UInt64(100 + index)))
            Self.pump(client, server)
        }
        let big = Message.chunk(Chunk(id: 1, offset: 0, total: 200_000, data: (0..<200_000).map { UInt8(truncatingIfNeeded: $0) }))
        server.channel.pipeline.write(big)
        Self.pump(client, server)
        #expect(server.recorder.messages == (0..<20).map { Message.cancel(id: UInt64($0)) })
        #expect(client.recorder.messages == (0..<20).map { Message.cancel(id: UInt64(100 + $0)) } + [big])
        #expect(client.recorder.errors.isEmpty && server.recorder.errors.isEmpty)
    }

    @Test("A flipped, dropped, replayed, reordered or injected record ends the connection; only the records before it are used")
    func recordTampering() throws {
        let tampering: [(String, ([[UInt8]], [UInt8]) -> [[UInt8]])] = [
            ("flipped", { records, _ in var copy = records; copy[1][10] ^= 0x01; return copy }),
            ("dropped", { records, _ in [records[0], records[2], records[3]] }),
            ("replayed", { records, _ in [records[0], records[1], records[1], records[2]] }),
            ("reordered", { records, _ in [records[0], records[2], records[1], records[3]] }),
            ("injected", { records, foreign in [records[0], foreign, records[1]] }),
        ]
        for (name, tamper) in tampering {
            let harness = Harness(dialing: false)
            var client = ManualClient()
            try client.authenticate(harness)
            var other = ManualClient()
            try other.authenticate(Harness(dialing: false))
            let foreign = try other.seal([.heartbeat])
            let records = try (0..<4).map { try client.seal([.cancel(id: UInt64($0))]) }
            for record in tamper(records, foreign) { harness.channel.receive(record) }
            // A replayed record is refused after the genuine one it copies.
            #expect(harness.recorder.messages == (name == "replayed" ? [.cancel(id: 0), .cancel(id: 1)] : [.cancel(id: 0)]), "\(name)")
            #expect(harness.recorder.errors.contains { if case .recordRejected = $0 as? SecureChannelError { true } else { false } },
                    "\(name): \(harness.recorder.errors)")
        }
    }

    @Test("An error frame from the peer, before or after the handshake, ends the connection as peer-reported")
    func peerError() throws {
        let before = Harness(dialing: false)
        before.channel.receive(Message.error(code: .timeout, message: "bye").frame.encoded)
        #expect(before.recorder.errors.contains { ($0 as? PeerReportedError)?.code == .timeout })

        let after = Harness(dialing: false)
        var client = ManualClient()
        try client.authenticate(after)
        after.channel.receive(try client.seal([.error(code: .slowPeer, message: "bye")]))
        #expect(after.recorder.errors.contains { ($0 as? PeerReportedError)?.code == .slowPeer })
        #expect(after.recorder.messages.isEmpty)
    }

    @Test("A handshake message after authentication is a protocol error, not delivered")
    func handshakeAfterAuthentication() throws {
        let harness = Harness(dialing: false)
        var client = ManualClient()
        try client.authenticate(harness)
        harness.channel.receive(try client.seal([.hello(Hello(versions: [4]))]))
        #expect(harness.recorder.messages.isEmpty)
        #expect(harness.recorder.errors.contains { if case .unexpected = $0 as? WireError { true } else { false } })
    }

    @Test("Before the handshake a frame over the handshake limit is refused from its length alone")
    func oversizedDuringHandshake() throws {
        let harness = Harness(dialing: false)
        // A length of 1 MiB, little-endian: far over the handshake's limit.
        var bytes: [UInt8] = [0, 0, 0x10, 0, FrameType.hello.rawValue, 0]
        bytes += [UInt8](repeating: 0, count: 64)
        harness.channel.receive(bytes)
        #expect(harness.recorder.errors.contains { if case .frameTooLarge = $0 as? WireError { true } else { false } })
    }

    @Test("The outbox writes control before ops before bulk, bounds what counts against the slow-peer limit, and ends with its farewell")
    func outboxPriorities() throws {
        let outbox = PeerOutbox(limit: 200)
        let ops = Frame(.ops, payload: [UInt8](repeating: 1, count: 100))
        #expect(outbox.push(ops, priority: .ops) == .queued(wake: true))
        #expect(outbox.push(Message.heartbeat.frame, priority: .control) == .queued(wake: false))
        #expect(outbox.push(ops, priority: .ops) == .full)
        #expect(outbox.push(Frame(.ops, payload: [UInt8](repeating: 2, count: 1_000)), priority: .ops, backlog: true) == .queued(wake: false))

        guard case .bytes(let bytes) = outbox.pull(waiting: false) else { Issue.record("nothing to write"); return }
        var decoder = FrameDecoder(maximumPayload: 1 << 20)
        decoder.append(bytes)
        #expect(try decoder.next()?.knownType == .heartbeat)
        #expect(try decoder.next()?.payload.count == 100)
        #expect(try decoder.next()?.payload.count == 1_000)
        if case .idle = outbox.pull(waiting: false) {} else { Issue.record("expected idle") }

        outbox.close(farewell: Message.error(code: .slowPeer, message: "too slow").frame)
        #expect(outbox.push(ops, priority: .ops) == .closed)
        guard case .bytes(let farewell) = outbox.pull(waiting: false) else { Issue.record("no farewell"); return }
        decoder.append(farewell)
        #expect(try decoder.next()?.knownType == .error)
        if case .finished = outbox.pull(waiting: false) {} else { Issue.record("expected finished") }
    }

    @Test("The outbox never mixes plain and sealed frames in one write: the handshake's frames go out plain, the rest sealed")
    func outboxSegments() throws {
        var queue = OutboundQueue(limit: 1 << 20)
        _ = queue.push(Frame(.noiseHandshake, payload: [UInt8](repeating: 1, count: 60)), priority: .control)
        queue.sealing = true
        _ = queue.push(Frame(.identity, payload: [UInt8](repeating: 2, count: 100)), priority: .control)
        let plain = queue.popSegment(maximumBytes: 80)
        #expect(!plain.sealed && plain.bytes.count == 66)
        let sealed = queue.popSegment(maximumBytes: 80)
        #expect(sealed.sealed && sealed.bytes.count == 106)
        #expect(queue.isEmpty)
        // A plain frame that fills the segment is not sealed because a sealed one waits after it.
        var mixed = OutboundQueue(limit: 1 << 20)
        _ = mixed.push(Frame(.noiseHandshake, payload: [UInt8](repeating: 1, count: 60)), priority: .control)
        mixed.sealing = true
        _ = mixed.push(Frame(.heartbeat), priority: .control)
        #expect(mixed.popSegment(maximumBytes: 10).sealed == false)
    }
}
