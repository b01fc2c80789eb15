import Foundation
import GalleryCrypto
import GalleryIO
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization

/// A peer that speaks the wire protocol by hand: it authenticates with the space's secret and a
/// fresh key, then sends whatever frames a test would, sealed.
struct RawPeer {
    let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    private var sealer: RecordSealer?
    private var opener: RecordOpener?
    private var pending: [Frame] = []

    /// Connects to `endpoint` and completes the handshake with `secret`, up to the node's identity.
    init(connectingTo endpoint: Endpoint, secret: [UInt8]) throws {
        streams = try Connector.connect(to: endpoint, timeout: .seconds(5))
        var settings = HandshakeSettings(secret: secret, staticKey: X25519.PrivateKey(),
                                         replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: "mallory")
        settings.maximumFrameSize = FrameLimits.maximum
        var handshake = ClientHandshake(settings: settings)
        for message in try handshake.start() { send(message) }
        guard let second = try receive(), case .finish(let third, let result) = try handshake.receive(second) else {
            throw CocoaError(.fileReadUnknown)
        }
        send(third)
        sealer = RecordSealer(result.sending)
        opener = RecordOpener(result.receiving, maximumPayload: Int(FrameLimits.maximum))
        send(.identity(settings.info(version: result.version)))
        guard case .identity? = try receive() else { throw CocoaError(.fileReadUnknown) }
    }

    mutating func send(_ message: Message) {
        let bytes = message.frame.encoded
        guard var sealer else {
            streams.output.writeAll(bytes)
            return
        }
        if let records = try? sealer.seal(bytes) { streams.output.writeAll(records) }
        self.sealer = sealer
    }

    /// The next message, nil at the end of the stream.
    mutating func receive() throws -> Message? {
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
    mutating func receiveError() throws -> (ErrorCode, String)? {
        while let message = try receive() {
            if case .error(let code, let text) = message { return (code, text) }
        }
        return nil
    }
}

/// A process-local stand-in for a hung node: it listens on `DIR/control.sock`, accepts every
/// connection, and never answers, until `stop()`.
final class SilentControlSocket: Sendable {
    private let fd: Int32
    /// The connections accepted, held open without a word.
    private final class Accepted: Sendable {
        let descriptors = Mutex<[Int32]>([])
    }
    private let accepted = Accepted()
    private let done = DispatchSemaphore(value: 0)

    init(path: String) throws {
        #if canImport(Darwin)
        fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #else
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let descriptor = fd
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let accepted = self.accepted, done = self.done
        Thread.detachNewThread {
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 { break }
                accepted.descriptors.withLock { $0.append(connection) }
            }
            done.signal()
        }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        #if canImport(Darwin)
        _ = Darwin.shutdown(fd, SHUT_RDWR)
        #else
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #endif
        _ = done.wait(timeout: .now() + 5)
        close(fd)
        for connection in accepted.descriptors.withLock({ $0 }) { close(connection) }
    }
}
