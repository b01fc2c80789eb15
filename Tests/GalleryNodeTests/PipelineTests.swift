import Foundation
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
        /// Decodes what the pipeline wrote, as its peer would.
        var peerDecoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))

        init(dialing: Bool, secret: [UInt8] = PipelineTests.secret, replica: UInt64 = 2) {
            outbox = PeerOutbox(limit: 1 << 20)
            let settings = HandshakeSettings(secret: secret, replica: ReplicaID(replica), name: dialing ? "client" : "server")
            channel = InMemoryChannel(handlers: [
                FrameCodecHandler(outbox: outbox), HandshakeHandler(dialing: dialing, settings: settings), MessageHandler(), recorder,
            ])
            channel.source = outbox
            channel.pipeline.fireChannelActive()
        }

        /// The messages the pipeline wrote since the last call.
        mutating func written() throws -> [Message] {
            for bytes in channel.takeWritten([UInt8].self) { peerDecoder.append(bytes) }
            var messages: [Message] = []
            while let frame = try peerDecoder.next() { messages.append(try Message(frame: frame)) }
            return messages
        }

        /// Runs a client handshake against this server pipeline; the peer's decoder then expects
        /// checksummed frames.
        mutating func authenticate(secret: [UInt8] = PipelineTests.secret) throws {
            var client = ClientHandshake(settings: HandshakeSettings(secret: secret, replica: ReplicaID(1), name: "client"))
            channel.receive(client.hello.frame.encoded(checksummed: false))
            for _ in 0..<2 {
                for message in try written() {
                    switch try client.receive(message) {
                    case .send(let reply): channel.receive(reply.frame.encoded(checksummed: false))
                    case .done: peerDecoder.checksummed = true
                    }
                }
            }
        }
    }

    @Test("A server pipeline answers hello, authenticates a client with the secret, then takes checksummed messages only")
    func serverHandshakeThenMessages() throws {
        var harness = Harness(dialing: false)
        try harness.authenticate()
        #expect(harness.recorder.peers.map(\.name) == ["client"])
        #expect(harness.peerDecoder.checksummed)

        harness.channel.receive(Message.heartbeat.frame.encoded(checksummed: true) + Message.caughtUp(VersionVector()).frame.encoded(checksummed: true))
        #expect(harness.recorder.messages == [.heartbeat, .caughtUp(VersionVector())])
        #expect(harness.recorder.errors.isEmpty)

        // After the handshake a frame without its CRC trailer is corrupt, and nothing after it is decoded.
        harness.channel.receive(Message.heartbeat.frame.encoded(checksummed: false) + Message.heartbeat.frame.encoded(checksummed: true))
        #expect(harness.recorder.errors.count == 1)
        #expect(harness.recorder.messages.count == 2)

        // Replies the pipeline writes after the handshake carry the trailer.
        harness.channel.pipeline.write(Message.heartbeat)
        #expect(try harness.written() == [.heartbeat])
    }

    @Test("A client pipeline sends hello as soon as the channel is active")
    func clientSendsHello() throws {
        var harness = Harness(dialing: true)
        let written = try harness.written()
        #expect(written.count == 1)
        if case .hello = written.first {} else { Issue.record("expected hello, got \(written)") }
    }

    @Test("A wrong secret fails the handshake: the failure reaches the tail, no peer is announced")
    func wrongSecret() throws {
        var harness = Harness(dialing: false)
        // The server answers nothing the client can finish with: the node's connection closes.
        try? harness.authenticate(secret: Array("other secret".utf8))
        #expect(harness.recorder.peers.isEmpty)
        #expect(harness.recorder.errors.contains { $0 is HandshakeFailure })
    }

    @Test("An error frame from the peer, before or after the handshake, ends the connection as peer-reported")
    func peerError() throws {
        let before = Harness(dialing: false)
        before.channel.receive(Message.error(code: .timeout, message: "bye").frame.encoded(checksummed: false))
        #expect(before.recorder.errors.contains { ($0 as? PeerReportedError)?.code == .timeout })

        var after = Harness(dialing: false)
        try after.authenticate()
        after.channel.receive(Message.error(code: .slowPeer, message: "bye").frame.encoded(checksummed: true))
        #expect(after.recorder.errors.contains { ($0 as? PeerReportedError)?.code == .slowPeer })
        #expect(after.recorder.messages.isEmpty)
    }

    @Test("A handshake message after authentication is a protocol error, not delivered")
    func handshakeAfterAuthentication() throws {
        var harness = Harness(dialing: false)
        try harness.authenticate()
        let hello = ClientHandshake(settings: HandshakeSettings(secret: Self.secret, replica: ReplicaID(9), name: "x")).hello
        harness.channel.receive(hello.frame.encoded(checksummed: true))
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
}
