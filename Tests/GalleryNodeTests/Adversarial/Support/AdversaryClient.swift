import Foundation
import GalleryIO
import GalleryWire
import Synchronization
import Testing

/// A hand-driven TCP client: raw bytes out, frames in. One deadline bounds every read: when it
/// passes, the streams are closed, which wakes a blocked read.
///
/// `@unchecked Sendable`: `timedOut` and `finished` are guarded by `lock`; the rest is used by one
/// thread at a time (the test's), except `send` from `AdversaryHeartbeats`, which never overlaps
/// another writer.
final class AdversaryClient: @unchecked Sendable {
    enum End: Equatable, CustomStringConvertible {
        /// The peer closed the connection: read returned 0.
        case eof
        /// The connection was reset (read failed), after the peer closed with data unread.
        case reset(String)
        /// The deadline passed first.
        case timeout
        /// The peer sent bytes that are not frames.
        case garbage(String)

        var isClosedByPeer: Bool {
            switch self {
            case .eof, .reset: true
            case .timeout, .garbage: false
            }
        }

        var description: String {
            switch self {
            case .eof: "closed by the node"
            case .reset(let reason): "reset by the node (\(reason))"
            case .timeout: "still open at the deadline"
            case .garbage(let reason): "undecodable bytes from the node (\(reason))"
            }
        }
    }

    let streams: StreamPair
    private let lock = NSLock()
    private var timedOut = false
    private var finished = false
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    /// Every frame received so far.
    private(set) var frames: [Frame] = []
    private var delivered = 0
    private(set) var bytesRead = 0
    private(set) var end: End?

    init(_ endpoint: Endpoint, deadline: Duration) throws {
        streams = try Connector.connect(to: endpoint, timeout: .seconds(2))
        let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [weak self] in self?.expire() }
    }

    deinit {
        streams.close()
    }

    private func expire() {
        let expired = lock.withLock { () -> Bool in
            if finished { return false }
            timedOut = true
            return true
        }
        if expired { streams.close() }
    }

    /// Writes all of `bytes`; false when the connection is closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        streams.output.writeAll(bytes)
    }

    /// Sends a message as a client does: plain during the handshake, in a sealed record once
    /// `authenticate` has finished the Noise handshake.
    @discardableResult
    func send(_ message: Message) -> Bool {
        sendFrames(message.frame.encoded)
    }

    /// Sends encoded frames (any bytes): sealed once the handshake is over, else as they are.
    @discardableResult
    func sendFrames(_ bytes: [UInt8]) -> Bool {
        guard var sealer else { return send(bytes) }
        defer { self.sealer = sealer }
        guard let records = try? sealer.seal(bytes) else { return false }
        return send(records)
    }

    /// Whether the Noise handshake is over: frames both ways travel in sealed records from then on.
    var sealed: Bool { sealer != nil }
    private var sealer: RecordSealer?
    private var opener: RecordOpener?

    /// Runs the version 3 handshake as `settings`' node: true once the node's sealed `identity`
    /// has arrived (this side's identity sent). Every frame received is kept in `frames`.
    @discardableResult
    func authenticate(_ settings: HandshakeSettings) -> Bool {
        var handshake = ClientHandshake(settings: settings)
        guard let opening = try? handshake.start() else { return false }
        for message in opening { send(message) }
        guard let frame = nextFrame(), let message = try? Message(frame: frame),
              case .finish(let third, let result)? = try? handshake.receive(message) else { return false }
        send(third)
        sealer = RecordSealer(result.sending)
        opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.maximum))
        send(.identity(settings.info(version: result.version)))
        return nextFrame()?.knownType == .identity
    }

    /// Sends `hello` and Noise message 1, reads message 2 and answers with message 3, as
    /// `settings`' node would; does not wait for the node's answer. False when message 2 did not come.
    @discardableResult
    func sendThirdMessage(_ settings: HandshakeSettings) -> Bool {
        var handshake = ClientHandshake(settings: settings)
        guard let opening = try? handshake.start() else { return false }
        for message in opening { send(message) }
        guard let frame = nextFrame(), let message = try? Message(frame: frame),
              case .finish(let third, _)? = try? handshake.receive(message) else { return false }
        return send(third)
    }

    /// The next frame not yet returned, reading as needed; nil once the connection has ended.
    func nextFrame() -> Frame? {
        while delivered == frames.count {
            guard end == nil, readMore() else { return nil }
        }
        delivered += 1
        return frames[delivered - 1]
    }

    /// Reads until the connection ends; the frames not yet returned.
    func readToEnd() -> [Frame] {
        while end == nil && readMore() {}
        defer { delivered = frames.count }
        return Array(frames[delivered...])
    }

    func close() {
        lock.withLock { finished = true }
        streams.close()
    }

    /// One read; false when the connection ended (and `end` says how).
    private func readMore() -> Bool {
        let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
        if count <= 0 {
            if lock.withLock({ timedOut }) {
                end = .timeout
            } else if count == 0 {
                end = .eof
            } else {
                end = .reset(streams.input.streamError.map { "\($0.localizedDescription)" } ?? "read failed")
            }
            return false
        }
        bytesRead += count
        decoder.append(Array(buffer[0..<count]))
        do {
            while let frame = try decoder.next() {
                if var opener, frame.knownType == .record {
                    self.opener = nil
                    defer { self.opener = opener }
                    frames += try opener.open(frame.payload)
                } else {
                    frames.append(frame)
                }
            }
        } catch {
            end = .garbage("\(error)")
            return false
        }
        return true
    }
}
