import GalleryIO
import GalleryWire

/// The node's redial component (protocol.md, "Addresses"): every peer in the address book that is
/// not connected, and every address the user gave that no peer has answered at yet, is dialed
/// with exponential backoff and jitter, through its addresses in turn, one attempt at a time per
/// peer. A connection that gets through its handshake resets the backoff. Sans I/O: a pass says
/// which attempts to start, the node dials and reports how each ended (`SyncNode+Lifecycle`).
/// Owned by the node's loop, in `PeerDirectory`.
struct Redial {
    /// Each peer or pending address this node redials, with its backoff.
    private(set) var targets: [DialTarget.Key: DialTarget] = [:]

    /// An attempt to start: dial `endpoint` for `key`.
    struct Attempt: Equatable {
        var key: DialTarget.Key
        var endpoint: Endpoint
    }

    /// Starts every attempt due at `now` among `wanted` (the peers not connected, with their
    /// addresses, and the pending addresses), in that order: a target's next address in turn,
    /// unless an attempt is under way. An address that is not HOST:PORT is skipped for
    /// `badAddressDelay`. Targets no longer wanted are dropped once their attempt is over.
    mutating func pass(wanted: [(key: DialTarget.Key, addresses: [String])], now: UInt64, badAddressDelay: UInt64) -> [Attempt] {
        var attempts: [Attempt] = []
        for (key, candidates) in wanted {
            var target = targets[key] ?? DialTarget(due: 0)
            defer { targets[key] = target }
            guard !target.dialing, now >= target.due, !candidates.isEmpty else { continue }
            let address = candidates[target.turn % candidates.count]
            target.turn &+= 1
            guard let endpoint = Endpoint(address) else {
                target.lastError = "\"\(address)\" is not HOST:PORT"
                target.due = now &+ badAddressDelay
                continue
            }
            target.dialing = true
            attempts.append(Attempt(key: key, endpoint: endpoint))
        }
        let keys = Set(wanted.map(\.key))
        targets = targets.filter { keys.contains($0.key) || $0.value.dialing }
        return attempts
    }

    /// The attempt for `key` ended: its connection `gotThrough` the handshake (the backoff starts
    /// over), or it failed with `error`. The next is due after `backoff(attempt)` nanoseconds
    /// from `now`. Returns whether this was the first failure since the last success (worth a
    /// line in the log); false for a target no longer held.
    mutating func attemptEnded(
        _ key: DialTarget.Key, gotThrough: Bool, error: String?, now: UInt64, backoff: (Int) -> UInt64
    ) -> Bool {
        guard var target = targets[key] else { return false }
        target.dialing = false
        let first = !gotThrough && target.attempt == 0
        if gotThrough {
            target.attempt = 0
            target.lastError = nil
        } else {
            target.lastError = error
            target.attempt += 1
        }
        target.due = now &+ backoff(max(target.attempt - 1, 0))
        targets[key] = target
        return first
    }

    /// Dials `key` at the next pass, whatever its backoff (an address given again, a peer that moved).
    mutating func dialSoon(_ key: DialTarget.Key) {
        targets[key]?.due = 0
    }

    /// The last connection to `key` ended: it is redialed at once, its backoff from the start,
    /// unless an attempt is under way.
    mutating func disconnected(_ key: DialTarget.Key) {
        guard var target = targets[key], !target.dialing else { return }
        target.attempt = 0
        target.due = 0
        targets[key] = target
    }

    /// Stops redialing the targets `isKnown` rejects (the book forgot them).
    mutating func keep(where isKnown: (DialTarget.Key) -> Bool) {
        targets = targets.filter { key, _ in isKnown(key) }
    }

    /// For a status: seconds until the next attempt at `key` (nil while one is under way, or for
    /// no target), and why the last one failed.
    func retry(_ key: DialTarget.Key, now: UInt64) -> (next: Double?, error: String?) {
        guard let target = targets[key] else { return (nil, nil) }
        let next = target.dialing ? nil : Double(target.due > now ? target.due - now : 0) / 1e9
        return (next, target.lastError)
    }

    /// Whether no attempt falls due before `soon` (one under way ends with an event).
    func idle(until soon: UInt64) -> Bool {
        targets.values.allSatisfy { $0.dialing || $0.due >= soon }
    }
}

extension Redial {
    /// Whether a dialed connection that ended resets the backoff: it got through the handshake
    /// and was not refused as a duplicate (the peer dials us too: then keep backing off).
    static func resetsBackoff(_ connection: Connection) -> Bool {
        let duplicate = connection.closeDescription?.contains("\(ErrorCode.duplicateConnection)") == true
        return connection.peer != nil && !duplicate
    }
}

/// One peer (or address) the node redials while it is not connected: exponential backoff with
/// jitter (`Backoff`), through its addresses in turn.
struct DialTarget {
    /// What is dialed: a known peer, or an address no peer has answered at yet.
    enum Key: Hashable {
        case peer(PeerKey)
        case address(String)
    }

    /// Failed attempts since the last connection that got through its handshake.
    var attempt = 0
    /// When (uptime, nanoseconds) the next attempt may start.
    var due: UInt64
    /// Which of the addresses the next attempt dials (round robin).
    var turn = 0
    /// Whether an attempt is under way (connecting, or its connection still open).
    var dialing = false
    /// Why the last attempt failed.
    var lastError: String?
}
