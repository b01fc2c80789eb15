import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryWire

/// A peer played by hand over raw streams, for tests: it runs the version 3 handshake with the
/// space's secret, then sends and receives whatever frames a test would, sealed in records after
/// the handshake (plain before it).
package struct RawPeer: Sendable {
    /// The connection's streams.
    package let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var sealer: RecordSealer?
    private var opener: RecordOpener?
    /// Frames opened from records and not yet returned.
    private var pending: [Frame] = []

    /// A peer over `streams`, not yet authenticated.
    package init(_ streams: StreamPair) {
        self.streams = streams
    }

    /// Connects to `endpoint` and authenticates with `secret` and a fresh key, up to the node's
    /// identity.
    package init(connectingTo endpoint: Endpoint, secret: [UInt8]) throws {
        self.init(try Connector.connect(to: endpoint, timeout: .seconds(5)))
        var settings = HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(),
                                         replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: "mallory")
        settings.maximumFrameSize = FrameLimits.maximum
        try authenticate(settings)
    }

    /// Runs the version 3 handshake as `settings`' node, up to the node's sealed `identity`.
    package mutating func authenticate(_ settings: HandshakeSettings) throws {
        var handshake = ClientHandshake(settings: settings)
        for message in try handshake.start() { send(message) }
        guard case .finish(let third, let result) = try handshake.receive(try receive()) else {
            throw WireError.unexpected("the handshake did not finish")
        }
        send(third)
        sealer = RecordSealer(result.sending)
        opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.maximum))
        send(.identity(settings.info(version: result.version)))
        guard case .identity = try receive() else { throw WireError.unexpected("no identity") }
    }

    /// Sends a message: sealed once authenticated.
    package mutating func send(_ message: Message) {
        let bytes = message.frame.encoded
        guard var sealer else {
            streams.output.writeAll(bytes)
            return
        }
        if let records = try? sealer.seal(bytes) { streams.output.writeAll(records) }
        self.sealer = sealer
    }

    /// The next message; throws at the end of the stream.
    package mutating func receive() throws -> Message {
        guard let message = try receiveOrEnd() else { throw WireError.unexpected("end of stream") }
        return message
    }

    /// The next message, or nil at the end of the stream.
    package mutating func receiveOrEnd() throws -> Message? {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if !pending.isEmpty { return try Message(frame: pending.removeFirst()) }
            if let frame = try decoder.next() {
                if var opener, frame.knownType == .record {
                    pending += try opener.open(frame.payload)
                    self.opener = opener
                    continue
                }
                return try Message(frame: frame)
            }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return nil }
            decoder.append(Array(buffer[..<count]))
        }
    }

    /// Reads until an `error` frame (returned) or the end of the stream (nil), skipping the rest.
    package mutating func receiveError() throws -> (ErrorCode, String)? {
        while let message = try receiveOrEnd() {
            if case .error(let code, let text) = message { return (code, text) }
        }
        return nil
    }
}
