import Foundation
import Synchronization
import Testing

/// Sends a heartbeat every 200 ms from its own thread until stopped.
final class AdversaryHeartbeats: Sendable {
    private let peer: AdversaryClient
    private let stopped = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    init(_ peer: AdversaryClient) {
        self.peer = peer
    }

    func start() {
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ $0 }) {
                if !peer.send(.heartbeat) { break }
                Thread.sleep(forTimeInterval: 0.2)
            }
            done.signal()
        }
    }

    /// Stops sending; returns once the thread has ended (within a bounded time). Idempotent.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { _ = done.wait(timeout: .now() + 5) }
    }
}

/// A value shared between threads.
final class AdversaryShared<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) {
        state = Mutex(value)
    }

    var value: Value { state.withLock { $0 } }

    func set(_ value: Value) {
        state.withLock { $0 = value }
    }

    func update(_ body: (inout Value) -> Void) {
        state.withLock { body(&$0) }
    }
}

/// Counts of the flood's connections, from several threads.
final class AdversaryFlood: Sendable {
    private let state = Mutex<(opened: Int, failed: Int, partialWrites: Int)>((0, 0, 0))

    func opened(wrote: Bool) {
        state.withLock {
            $0.opened += 1
            if !wrote { $0.partialWrites += 1 }
        }
    }

    func failed() {
        state.withLock { $0.failed += 1 }
    }

    var counts: (opened: Int, failed: Int, partialWrites: Int) {
        state.withLock { $0 }
    }
}
