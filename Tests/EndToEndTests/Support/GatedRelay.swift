import Foundation
import GalleryIO

/// A TCP relay between a dialing node and the node it dials whose way back to the dialer can be
/// held: after `hold(after:)` it forwards that many more bytes to the dialer and then nothing until
/// `release()`. A test sees what the dialer does with part of a transfer, however fast loopback is.
final class GatedRelay: @unchecked Sendable {
    // `@unchecked Sendable`: the gate is behind `condition`.
    /// Where the relay listens: give it to the dialing node as its peer.
    let endpoint: Endpoint
    private let target: Endpoint
    private let listener: Listener
    private let condition = NSCondition()
    /// Bytes still let through to the dialer; nil: no limit.
    private var allowance: Int?
    private var open: [StreamPair] = []
    private var stopped = false

    init(to target: Endpoint) throws {
        self.target = target
        listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        endpoint = listener.endpoint
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// From now on lets `bytes` more through to the dialer, then holds the rest.
    func hold(after bytes: Int) {
        condition.withLock { allowance = bytes }
    }

    /// Lets everything through again.
    func release() {
        condition.withLock {
            allowance = nil
            condition.broadcast()
        }
    }

    /// Stops listening and closes every relayed connection.
    func stop() {
        listener.close()
        let streams = condition.withLock {
            stopped = true
            allowance = nil
            condition.broadcast()
            return open
        }
        for stream in streams { stream.close() }
    }

    private func acceptLoop() {
        while true {
            guard let dialer = try? listener.accept() else { return }
            guard let dialed = try? Connector.connect(to: target, timeout: .seconds(2)) else {
                dialer.close()
                continue
            }
            condition.withLock { open += [dialer, dialed] }
            Thread.detachNewThread { [self] in pump(from: dialer, to: dialed, gated: false) }
            Thread.detachNewThread { [self] in pump(from: dialed, to: dialer, gated: true) }
        }
    }

    /// Copies bytes one way until either side closes; the way back waits at the gate.
    private func pump(from source: StreamPair, to destination: StreamPair, gated: Bool) {
        defer {
            source.close()
            destination.close()
        }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { source.input.read($0.baseAddress!, maxLength: $0.count) }
            if count <= 0 { return }
            var rest = Array(buffer[..<count])
            while !rest.isEmpty {
                let take = gated ? passable(rest.count) : rest.count
                guard destination.output.writeAll(Array(rest[..<take])) else { return }
                rest.removeFirst(take)
            }
        }
    }

    /// How many of `wanted` bytes (at least 1) may go now; waits while the gate is shut (at most
    /// a minute: then it opens, so that no test hangs).
    private func passable(_ wanted: Int) -> Int {
        condition.withLock {
            let deadline = Date().addingTimeInterval(60)
            while let left = allowance, left == 0, !stopped, Date() < deadline { _ = condition.wait(until: deadline) }
            guard let left = allowance, left > 0 else { return wanted }
            let take = min(left, wanted)
            allowance = left - take
            return take
        }
    }
}
