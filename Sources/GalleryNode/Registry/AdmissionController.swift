import Foundation
import Synchronization
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Decides which accepted connections a node keeps before they authenticate, and which it sheds
/// when it runs out of descriptors.
///
/// The accept loop asks `decision(for:)` before it makes anything for a connection: a refused one
/// is closed at once, with no thread and no buffer. An admitted one holds its place from that
/// decision on (a `Ticket`), while the node's loop makes and registers it, so the caps hold
/// exactly without the accept loop waiting for the node's loop; it is then tracked until it
/// authenticates or closes (pruned lazily, so the connection needs no hook back here).
final class AdmissionController: Sendable {
    /// One admitted inbound connection still in its handshake.
    private struct Entry {
        /// Nil until the node has made and registered it (`admitted(_:with:)`).
        var connection: Connection?
        /// Its address group (`addressGroup(ofHost:)`).
        let host: String
    }

    /// The place an admitted connection holds from its admission on.
    struct Ticket: Sendable {
        fileprivate let number: UInt64
    }

    let limits: AdmissionLimits
    /// The admitted connections still in their handshake, and the tickets given.
    private struct Table {
        /// By ticket number, in the order they were admitted.
        var pending: [UInt64: Entry] = [:]
        /// The next ticket's number.
        var nextTicket: UInt64 = 0

        /// A place for a connection from `group`.
        mutating func ticket(_ group: String) -> Ticket {
            nextTicket += 1
            pending[nextTicket] = Entry(connection: nil, host: group)
            return Ticket(number: nextTicket)
        }

        /// Forgets connections that authenticated or are closing (a place whose connection is
        /// still being made stays).
        mutating func prune() {
            pending = pending.filter { _, entry in
                entry.connection.map { !$0.isAuthenticated && !$0.isClosing } ?? true
            }
        }
    }

    private let table = Mutex(Table())

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
        /// Keep it, at this place.
        case admit(Ticket)
        /// Keep it, and close this older unauthenticated connection of the most crowded group to
        /// make room: a full table never locks a newcomer from a quieter address out.
        case admitEvicting(Ticket, Connection)
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
        table.withLock { table in
            table.prune()
            var counts: [String: Int] = [:]
            for entry in table.pending.values { counts[entry.host, default: 0] += 1 }
            let fromGroup = counts[group] ?? 0
            if fromGroup >= limits.maximumUnauthenticatedPerAddress {
                return .refuse("\(fromGroup) unauthenticated connections from \(group) already (at most \(limits.maximumUnauthenticatedPerAddress))")
            }
            guard table.pending.count >= limits.maximumUnauthenticated else { return .admit(table.ticket(group)) }
            // The oldest connection among those of the most crowded groups (registered: one still
            // being made is not there to close).
            let most = counts.values.max() ?? 0
            guard most > fromGroup + 1,
                  let oldest = table.pending.filter({ counts[$0.value.host] == most && $0.value.connection != nil }).keys.min(),
                  let evicted = table.pending.removeValue(forKey: oldest)?.connection else {
                return .refuse("\(table.pending.count) unauthenticated connections already (at most \(limits.maximumUnauthenticated))")
            }
            return .admitEvicting(table.ticket(group), evicted)
        }
    }

    /// The connection admitted with `ticket` is made: tracked until it authenticates or closes.
    func admitted(_ connection: Connection, with ticket: Ticket) {
        table.withLock { $0.pending[ticket.number]?.connection = connection }
    }

    /// The connection admitted with `ticket` was not made (the node stopped): its place is free.
    func release(_ ticket: Ticket) {
        table.withLock { _ = $0.pending.removeValue(forKey: ticket.number) }
    }

    /// Unauthenticated inbound connections held now.
    var unauthenticatedCount: Int {
        table.withLock { table in
            table.prune()
            return table.pending.count
        }
    }

    /// Closes the oldest unauthenticated inbound connection (to free its descriptor); false when
    /// there is none.
    func shedOldest(reason: String) -> Bool {
        let oldest = table.withLock { table -> Connection? in
            table.prune()
            guard let oldest = table.pending.filter({ $0.value.connection != nil }).keys.min() else { return nil }
            return table.pending.removeValue(forKey: oldest)?.connection
        }
        guard let oldest else { return false }
        oldest.close(.internalError, reason)
        return true
    }
}
