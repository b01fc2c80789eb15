import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Decides which accepted connections a node keeps before they authenticate, and which it sheds
/// when it runs out of descriptors.
///
/// The accept loop asks `decision(for:)` before it makes anything for a connection: a refused one
/// is closed at once, with no thread and no buffer. Admitted inbound connections are tracked
/// until they authenticate or close (pruned lazily, so the connection needs no hook back here).
/// `@unchecked Sendable`: all mutable state is guarded by `lock`.
final class AdmissionController: @unchecked Sendable {
    /// One admitted inbound connection still in its handshake.
    private struct Entry {
        let connection: Connection
        /// Its address group (`addressGroup(ofHost:)`).
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

    /// What the caps count a remote address as: an IPv4 address itself (an IPv4-mapped IPv6 one as
    /// its IPv4 address), an IPv6 address as its /64, which one host can fill with addresses of
    /// its own; the zone of a link-local address is dropped.
    static func addressGroup(ofHost host: String) -> String {
        let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let prefix = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return prefix.joined(separator: ":") + "::/64"
    }

    /// What the accept loop does with a new connection from `group`.
    enum Decision {
        /// Keep it.
        case admit
        /// Keep it, and close this older unauthenticated connection of the most crowded group to
        /// make room: a full table never locks a newcomer from a quieter address out.
        case admitEvicting(Connection)
        /// Close it at once, for this reason.
        case refuse(String)
    }

    /// Whether a new connection from the address group `group` (`addressGroup(ofHost:)`) is kept.
    ///
    /// Over the per-group cap it is refused. When the total cap is reached, the oldest pending
    /// connection of the most crowded group makes room for it, unless its own group is as crowded
    /// (then it is refused): a flood from a few addresses keeps evicting its own connections, and a
    /// peer from another address still gets its turn at the handshake.
    func decision(for group: String) -> Decision {
        lock.withLock {
            pruneLocked()
            var counts: [String: Int] = [:]
            for entry in pending.values { counts[entry.host, default: 0] += 1 }
            let fromGroup = counts[group] ?? 0
            if fromGroup >= limits.maximumUnauthenticatedPerAddress {
                return .refuse("\(fromGroup) unauthenticated connections from \(group) already (at most \(limits.maximumUnauthenticatedPerAddress))")
            }
            guard pending.count >= limits.maximumUnauthenticated else { return .admit }
            // The oldest connection among those of the most crowded groups.
            let most = counts.values.max() ?? 0
            guard most > fromGroup + 1,
                  let oldest = pending.filter({ counts[$0.value.host] == most }).keys.min(),
                  let evicted = pending.removeValue(forKey: oldest) else {
                return .refuse("\(pending.count) unauthenticated connections already (at most \(limits.maximumUnauthenticated))")
            }
            return .admitEvicting(evicted.connection)
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
