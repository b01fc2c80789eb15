import Foundation
import GalleryIO
import GalleryNode
import GalleryWire
import Synchronization

/// A man in the middle for tests: a TCP relay between a dialing node and the node it dials that
/// cuts both streams into frames (plain for the two handshake frames each way, with their checksum
/// trailer after) and can damage or drop one chosen frame, once. It drops every `addresses` frame
/// (protocol.md, section 10.1), so that the nodes do not learn each other's direct addresses and keep
/// redialing through it.
final class FrameRelay: Sendable {
    /// Which way a frame travels.
    enum Direction: Sendable {
        /// From the dialing node to the node dialed.
        case toTarget
        /// From the node dialed back to the dialing node.
        case toDialer
    }

    /// What to do to the next frame of a type after the handshake.
    enum Fault: Sendable {
        /// Flip one bit of its payload (leaving its checksum as it was).
        case flipBit(FrameType)
        /// Forward nothing of it: the frame is lost, the connection stays.
        case drop(FrameType)
    }

    /// Where the relay listens: give it to the dialing node as its peer.
    let endpoint: Endpoint
    private let target: Endpoint
    private let listener: Listener
    private let state = Mutex<(faults: [(Direction, Fault)], applied: [String], connections: Int, open: [StreamPair])>(([], [], 0, []))

    /// Starts relaying connections made to `endpoint` to `target`.
    init(to target: Endpoint) throws {
        self.target = target
        listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        endpoint = listener.endpoint
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops listening and closes every relayed connection (its threads then end); call it when
    /// done, as the accepting thread keeps the relay alive until then.
    func stop() {
        listener.close()
        for streams in state.withLock({ $0.open }) { streams.close() }
    }

    /// Applies `fault` to the next matching frame going `direction` (once).
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
        var framesSeen = 0
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { source.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return }
            pending += buffer[..<count]
            var out: [UInt8] = []
            while pending.count >= FrameLimits.headerSize {
                let length = Int(pending[0]) | Int(pending[1]) << 8 | Int(pending[2]) << 16 | Int(pending[3]) << 24
                let sealed = framesSeen >= 2
                let size = FrameLimits.headerSize + length + (sealed ? FrameLimits.checksumSize : 0)
                guard pending.count >= size else { break }
                var frame = Array(pending[..<size])
                pending.removeFirst(size)
                framesSeen += 1
                if sealed && frame[4] == FrameType.addresses.rawValue { continue }
                if sealed, let fault = takeFault(type: frame[4], direction) {
                    switch fault {
                    case .flipBit:
                        frame[FrameLimits.headerSize + length / 2] ^= 0x10
                    case .drop:
                        continue
                    }
                }
                out += frame
            }
            guard !out.isEmpty else { continue }
            guard destination.output.writeAll(out) else { return }
        }
    }

    /// The armed fault for a frame of this type going this way, if any (disarmed once taken).
    private func takeFault(type: UInt8, _ direction: Direction) -> Fault? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: { entry in
                guard entry.0 == direction else { return false }
                switch entry.1 {
                case .flipBit(let wanted), .drop(let wanted): return wanted.rawValue == type
                }
            }) else { return nil }
            let fault = state.faults.remove(at: index).1
            state.applied.append("\(fault) \(direction)")
            return fault
        }
    }
}
