import Foundation
import GalleryIO
import GalleryWire

/// Taking inbound connections: admission before anything is made for a connection, and backing
/// off (shedding unauthenticated connections first) when the process runs out of descriptors.
extension SyncNode {
    /// The longest pause between accept attempts while descriptors are exhausted.
    static let maximumAcceptBackoff: UInt64 = 1_000_000_000
    /// The first pause after an accept failed for want of descriptors.
    static let minimumAcceptBackoff: UInt64 = 10_000_000

    /// Accepts connections until the node stops. A connection over the unauthenticated limits is
    /// closed at once (no thread, no buffer); at the descriptor limit the oldest unauthenticated
    /// connection is shed and accepting pauses, longer while nothing can be shed.
    func acceptLoop(_ listener: Listener) {
        var backoff: UInt64 = 0
        while isRunning {
            do {
                let streams = try listener.accept()
                backoff = 0
                let host = AdmissionController.host(of: streams.remote)
                if let refusal = admission.refusal(for: host) {
                    streams.close()
                    throttledLog("refused", "\(configuration.name): refused a connection from \(streams.remote): \(refusal)")
                    continue
                }
                guard let connection = adopt(streams, role: .server) else { break }
                admission.track(connection, host: host)
            } catch .closed {
                break
            } catch .descriptorsExhausted(let reason) {
                let shed = admission.shedOldest(reason: "the node is out of descriptors: try again later")
                // A shed connection frees its descriptor as soon as its error frame is out: try
                // again soon. With nothing to shed, wait longer and longer (up to a second).
                backoff = shed ? Self.minimumAcceptBackoff : min(max(backoff * 2, Self.minimumAcceptBackoff), Self.maximumAcceptBackoff)
                throttledLog("exhausted", "\(configuration.name): accept failed: \(reason); "
                    + (shed ? "shed the oldest unauthenticated connection" : "no unauthenticated connection to shed, pausing"))
                pauseAccepting(backoff)
            } catch {
                backoff = min(max(backoff * 2, Self.minimumAcceptBackoff), Self.maximumAcceptBackoff)
                throttledLog("accept", "\(configuration.name): accept failed: \(error.localizedDescription)")
                pauseAccepting(backoff)
            }
        }
    }

    /// Waits `nanoseconds`, or until the node stops.
    private func pauseAccepting(_ nanoseconds: UInt64) {
        let deadline = Date().addingTimeInterval(Double(nanoseconds) / 1e9)
        condition.withLock {
            while running && condition.wait(until: deadline) {}
        }
    }
}
