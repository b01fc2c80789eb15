import Foundation
import GalleryIO
import GalleryWire
import Synchronization

/// A man in the middle for tests: a TCP relay between a dialing node and the node it dials that
/// cuts both streams into frames (the handshake's plain frames, then sealed `record` frames) and
/// tampers with chosen records: it cannot read them, only flip, drop, duplicate, reorder or inject.
final class RecordRelay: Sendable {
    /// Which way a record travels.
    enum Direction: Sendable {
        /// From the dialing node to the node dialed.
        case toTarget
        /// From the node dialed back to the dialing node.
        case toDialer
    }

    /// What to do to the next record (of at least `minimumBytes` of ciphertext) going one way.
    enum Fault: String, Sendable, CaseIterable {
        /// Flip one bit in the middle of its ciphertext.
        case flip
        /// Forward nothing of it.
        case drop
        /// Forward it twice.
        case duplicate
        /// Hold it back and forward it after the next record.
        case reorder
        /// Forward a made-up record (random bytes) before it.
        case inject
    }

    /// Where the relay listens: give it to the dialing node as its peer.
    let endpoint: Endpoint
    private let target: Endpoint
    private let listener: Listener
    private let minimumBytes: Int
    private let state = Mutex<(faults: [(Direction, Fault)], applied: [String], connections: Int, open: [StreamPair])>(([], [], 0, []))

    /// Starts relaying connections made to `endpoint` to `target`; faults hit records of at least
    /// `minimumBytes` bytes of ciphertext (larger than a lone heartbeat's 22, so an ops record).
    init(to target: Endpoint, minimumBytes: Int = 40) throws {
        self.target = target
        self.minimumBytes = minimumBytes
        listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        endpoint = listener.endpoint
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops listening and closes every relayed connection.
    func stop() {
        listener.close()
        for streams in state.withLock({ $0.open }) { streams.close() }
    }

    /// Applies `fault` to the next matching record going `direction` (once).
    func arm(_ fault: Fault, _ direction: Direction) {
        state.withLock { $0.faults.append((direction, fault)) }
    }

    /// The faults applied so far, described.
    var applied: [String] { state.withLock { $0.applied } }

    /// Connections relayed so far.
    var connectionCount: Int { state.withLock { $0.connections } }

    private func acceptLoop() {
        while true {
            guard let dialer = try? listener.accept() else { return }
            guard let dialed = try? Connector.connect(to: target, timeout: .seconds(2)) else {
                dialer.close()
                continue
            }
            state.withLock {
                $0.connections += 1
                $0.open += [dialer, dialed]
            }
            Thread.detachNewThread { [self] in pump(from: dialer, to: dialed, .toTarget) }
            Thread.detachNewThread { [self] in pump(from: dialed, to: dialer, .toDialer) }
        }
    }

    /// Copies frames one way until either side closes, applying an armed fault on the way.
    private func pump(from source: StreamPair, to destination: StreamPair, _ direction: Direction) {
        defer {
            source.close()
            destination.close()
        }
        var pending: [UInt8] = []
        var heldBack: [UInt8]?
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { source.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return }
            pending += buffer[..<count]
            var out: [UInt8] = []
            while pending.count >= FrameLimits.headerSize {
                let length = Int(pending[0]) | Int(pending[1]) << 8 | Int(pending[2]) << 16 | Int(pending[3]) << 24
                let size = FrameLimits.headerSize + length
                guard pending.count >= size else { break }
                var frame = Array(pending[..<size])
                pending.removeFirst(size)
                let isRecord = frame[4] == FrameType.record.rawValue
                guard isRecord, length >= minimumBytes, let fault = takeFault(direction) else {
                    out += frame
                    if isRecord, let held = heldBack {
                        out += held
                        heldBack = nil
                    }
                    continue
                }
                switch fault {
                case .flip:
                    frame[FrameLimits.headerSize + length / 2] ^= 0x10
                    out += frame
                case .drop:
                    break
                case .duplicate:
                    out += frame + frame
                case .reorder:
                    heldBack = frame
                case .inject:
                    let forged = (0..<48).map { _ in UInt8.random(in: 0...255) }
                    out += Frame(.record, payload: forged).encoded + frame
                }
            }
            guard !out.isEmpty else { continue }
            guard destination.output.writeAll(out) else { return }
        }
    }

    /// The armed fault for this direction, if any (disarmed once taken).
    private func takeFault(_ direction: Direction) -> Fault? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: { $0.0 == direction }) else { return nil }
            let fault = state.faults.remove(at: index).1
            state.applied.append("\(fault) \(direction)")
            return fault
        }
    }
}
