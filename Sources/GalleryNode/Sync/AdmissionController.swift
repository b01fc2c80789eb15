import Foundation

/// Decides which accepted connections a node keeps before they authenticate, and which it sheds
/// when it runs out of descriptors.
///
/// The accept loop asks `refusal(for:)` before it makes anything for a connection: a refused one
/// is closed at once, with no thread and no buffer. Admitted inbound connections are tracked
/// until they authenticate or close (pruned lazily, so the connection needs no hook back here).
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class AdmissionController: @unchecked Sendable {
    /// One admitted inbound connection still in its handshake.
    private struct Entry {
        let connection: Connection
        let host: String
    }

    let limits: AdmissionLimits
    private let lock = NSLock()
    /// Guarded by `lock`: by connection ID, in the order they were admitted (IDs increase).
    private var pending: [Int: Entry] = [:]

    init(limits: AdmissionLimits) {
        self.limits = limits
    }

    /// The address part of a remote "ip:port" or "[ip]:port".
    static func host(of remote: String) -> String {
        if remote.hasPrefix("["), let end = remote.firstIndex(of: "]") {
            return String(remote[remote.index(after: remote.startIndex)..<end])
        }
        guard let colon = remote.lastIndex(of: ":") else { return remote }
        return String(remote[..<colon])
    }

    /// Why a new connection from `host` is refused, nil when it is admitted.
    func refusal(for host: String) -> String? {
        lock.withLock {
            pruneLocked()
            if pending.count >= limits.maximumUnauthenticated {
                return "\(pending.count) unauthenticated connections already (at most \(limits.maximumUnauthenticated))"
            }
            let fromHost = pending.values.reduce(0) { $0 + ($1.host == host ? 1 : 0) }
            if fromHost >= limits.maximumUnauthenticatedPerAddress {
                return "\(fromHost) unauthenticated connections from \(host) already (at most \(limits.maximumUnauthenticatedPerAddress))"
            }
            return nil
        }
    }

    /// Tracks an admitted inbound connection until it authenticates or closes.
    func track(_ connection: Connection, host: String) {
        lock.withLock { pending[connection.id] = Entry(connection: connection, host: host) }
    }

    /// Unauthenticated inbound connections held now.
    var unauthenticatedCount: Int {
        lock.withLock {
            pruneLocked()
            return pending.count
        }
    }

    /// Closes the oldest unauthenticated inbound connection (to free its descriptor); false when
    /// there is none.
    func shedOldest(reason: String) -> Bool {
        let oldest = lock.withLock { () -> Connection? in
            pruneLocked()
            guard let id = pending.keys.min() else { return nil }
            return pending.removeValue(forKey: id)?.connection
        }
        guard let oldest else { return false }
        oldest.close(.internalError, reason)
        return true
    }

    /// Forgets connections that authenticated or are closing. Caller holds `lock`.
    private func pruneLocked() {
        pending = pending.filter { !$0.value.connection.isAuthenticated && !$0.value.connection.isClosing }
    }
}
