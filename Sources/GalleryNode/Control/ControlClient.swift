import Foundation
import GalleryModel
import GalleryWire

/// Sends one command to the node serving a directory, over its port, authenticated with the
/// directory's secret, and returns the node's answer.
public enum ControlClient {
    /// Why a command did not get an answer.
    public enum Failure: Error, Hashable, Sendable, LocalizedError {
        /// No node serves the directory, or it cannot be reached.
        case notRunning(String)
        /// The node refused the secret.
        case authRefused(String)
        /// The connection failed in another way.
        case failed(String)

        public var errorDescription: String? {
            switch self {
            case .notRunning(let reason), .authRefused(let reason), .failed(let reason): reason
            }
        }
    }

    /// The name and address in `DIR/node.json`, written by `gallery serve`.
    public static func nodeInfo(of directory: URL) throws(Failure) -> (name: String, address: Endpoint) {
        let file = directory.appendingPathComponent("node.json")
        guard let data = FileManager.default.contents(atPath: file.path),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let name = object["name"] as? String, let text = object["address"] as? String,
              let address = Endpoint(text) else {
            throw .notRunning("no node is running on \(directory.path) (no \(file.path))")
        }
        return (name, address)
    }

    /// Sends `request` and waits at most `timeout` for the answer.
    public static func send(_ request: ControlRequest, to directory: URL, timeout: Duration = .seconds(10)) throws(Failure) -> ControlResponse {
        var answer: ControlResponse?
        try stream(request, to: directory, timeout: timeout) { response in
            answer = response
            return false
        }
        guard let answer else { throw .failed("no answer from the node in time") }
        return answer
    }

    /// Sends `request` and passes every answer to `handler` until it returns false, the node closes
    /// the connection, or `timeout` (if any) passes.
    public static func stream(
        _ request: ControlRequest, to directory: URL, timeout: Duration?, _ handler: (ControlResponse) -> Bool
    ) throws(Failure) {
        let (_, address) = try nodeInfo(of: directory)
        guard let secret = FileManager.default.contents(atPath: directory.appendingPathComponent("secret").path) else {
            throw .failed("cannot read \(directory.appendingPathComponent("secret").path)")
        }
        let streams: StreamPair
        do {
            streams = try Connector.connect(to: address, timeout: timeout ?? .seconds(10))
        } catch {
            throw .notRunning("the node of \(directory.path) is not running or unreachable: \(error.localizedDescription)")
        }
        defer { streams.close() }
        // A node that does not answer in time: closing the streams ends the blocked read.
        let watchdog = DispatchWorkItem { streams.close() }
        if let timeout {
            DispatchQueue.global().asyncAfter(deadline: .now() + Double(timeout.components.seconds), execute: watchdog)
        }
        defer { watchdog.cancel() }

        var channel = FrameChannel(streams: streams)
        var settings = HandshakeSettings(
            secret: Array(secret), replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: ControlClientName.value)
        settings.maximumFrameSize = FrameLimits.maximum
        var handshake = ClientHandshake(settings: settings)
        channel.send(handshake.hello)
        do {
            while true {
                guard let message = try channel.receive() else { throw Failure.failed("the node closed the connection") }
                switch try handshake.receive(message) {
                case .send(let reply): channel.send(reply)
                case .done: break
                }
                if case .authOK = message { break }
            }
            channel.seal()
        } catch let failure as HandshakeFailure {
            if failure.code == .authFailed { throw .authRefused("the node refused the secret of \(directory.path)") }
            throw .failed("handshake failed: \(failure.code): \(failure.reason)")
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .failed("handshake failed: \(error.localizedDescription)")
        }
        guard let json = try? JSONEncoder().encode(request) else { throw .failed("cannot encode the request") }
        channel.send(.controlRequest(Array(json)))
        do {
            while let message = try channel.receive() {
                if case .controlResponse(let bytes) = message {
                    guard let response = try? JSONDecoder().decode(ControlResponse.self, from: Data(bytes)) else {
                        throw Failure.failed("malformed answer from the node")
                    }
                    if !handler(response) { return }
                }
                // Answered so that the node does not drop a client that only listens (`watch`).
                if case .heartbeat = message { channel.send(.heartbeat) }
                if case .error(let code, let text) = message { throw Failure.failed("the node closed: \(code): \(text)") }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .failed("connection failed: \(error.localizedDescription)")
        }
    }
}

/// Frames over a pair of streams, for a short synchronous exchange.
struct FrameChannel {
    let streams: StreamPair
    private var decoder = FrameDecoder(maximumPayload: Int(FrameLimits.maximum))
    /// Whether the handshake is over: frames both ways carry a checksum trailer.
    private var sealed = false

    init(streams: StreamPair) {
        self.streams = streams
    }

    /// Switches to checksummed frames, both ways, once the handshake is over.
    mutating func seal() {
        sealed = true
        decoder.checksummed = true
    }

    func send(_ message: Message) {
        let bytes = message.frame.encoded(checksummed: sealed)
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = streams.output.write(buffer.baseAddress! + offset, maxLength: buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// The next message, skipping unknown ignorable frames; nil at the end of the stream.
    mutating func receive() throws -> Message? {
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if let frame = try decoder.next() {
                if frame.knownType == nil && frame.flags & Frame.ignorableFlag != 0 { continue }
                return try Message(frame: frame)
            }
            let count = buffer.withUnsafeMutableBufferPointer { streams.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return nil }
            decoder.append(Array(buffer[..<count]))
        }
    }
}
