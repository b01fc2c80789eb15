import Foundation
import GalleryIO
import GalleryWire

/// Redial from both sides (protocol.md, "Addresses"): every peer in the address book that is not
/// connected, whichever side dialed first, and every address the user gave that no peer has
/// answered at yet, is dialed with exponential backoff and jitter (`NodeConfiguration.reconnect`),
/// through its addresses in turn, one attempt at a time per peer. A connection that gets through
/// its handshake resets the backoff. When both sides dial at once, the handshake's duplicate rule
/// keeps one connection, the same on both sides (`SyncNode+Sessions`).
extension SyncNode {
    /// Starts every attempt that is due. On the loop (the liveness pass, and when the book changes).
    func redialPass(now: UInt64) {
        guard isRunning else { return }
        // The set of connected keys is made only when some peer has an address to dial (inbound
        // peers that announce none are the many, and this runs ten times a second).
        var connected: Set<PeerKey>?
        var wanted: Set<DialTarget.Key> = []
        for peer in addresses.book.peers where !peer.addresses.isEmpty {
            if connected == nil { connected = connectedKeys }
            guard connected?.contains(peer.key) == false else { continue }
            wanted.insert(.peer(peer.key))
            consider(.peer(peer.key), addresses: peer.addresses.map(\.address), now: now)
        }
        for entry in addresses.book.pending {
            wanted.insert(.address(entry.address))
            consider(.address(entry.address), addresses: [entry.address], now: now)
        }
        // Targets connected or gone from the book are dropped once their attempt is over.
        addresses.targets = addresses.targets.filter { wanted.contains($0.key) || $0.value.dialing }
    }

    /// Starts one attempt for `key` when it is due and none is under way.
    private func consider(_ key: DialTarget.Key, addresses candidates: [String], now: UInt64) {
        var target = addresses.targets[key] ?? DialTarget(due: 0)
        defer { addresses.targets[key] = target }
        guard !target.dialing, now >= target.due, !candidates.isEmpty else { return }
        let address = candidates[target.turn % candidates.count]
        target.turn &+= 1
        guard let endpoint = Endpoint(address) else {
            target.lastError = "\"\(address)\" is not HOST:PORT"
            target.due = now &+ UInt64(max(configuration.reconnect.maximum.nanoseconds, 0))
            return
        }
        target.dialing = true
        startDial(endpoint, for: key)
    }

    /// Dials `endpoint` on the transport; the outcome comes back to the loop (`dialEnded`).
    private func startDial(_ endpoint: Endpoint, for key: DialTarget.Key) {
        let address = endpoint.description
        guard let transport = condition.withLock({ transport }) else {
            dialEnded(key, address: address, connection: nil, failure: "the node stopped")
            return
        }
        let timeout = UInt64(max(configuration.peerTimeout.nanoseconds, 1_000_000))
        transport.connect(to: endpoint, timeout: timeout) { [self] result in
            loop.async { [self] in
                switch result {
                case .success(let link):
                    let connection = register(link, role: .client, dialed: endpoint) { [self] connection in
                        loop.async { [self] in dialEnded(key, address: address, connection: connection, failure: nil) }
                    }
                    if connection == nil { dialEnded(key, address: address, connection: nil, failure: "the node stopped") }
                case .failure(let error):
                    dialEnded(key, address: address, connection: nil, failure: error.localizedDescription)
                }
            }
        }
    }

    /// An attempt is over: its connection ended, or it never connected. The next is due after the
    /// backoff (from 0 again when the connection got through its handshake). On the loop.
    private func dialEnded(_ key: DialTarget.Key, address: String, connection: Connection?, failure: String?) {
        guard var target = addresses.targets[key] else { return }
        target.dialing = false
        if let connection, Self.resetsBackoff(connection) {
            target.attempt = 0
            target.lastError = nil
        } else {
            if target.attempt == 0, let failure {
                configuration.log("\(configuration.name): cannot reach \(address): \(failure)")
            }
            target.lastError = failure ?? connection?.closeDescription.map { "\(address): \($0)" }
            target.attempt += 1
        }
        var generator = EnvironmentRandom(source: configuration.environment.random)
        let delay = configuration.reconnect.delay(attempt: max(target.attempt - 1, 0), using: &generator)
        target.due = clock.now &+ UInt64(max(delay.nanoseconds, 0))
        addresses.targets[key] = target
    }

    /// The peers in the book, connected or not, and the addresses still waiting for an answer,
    /// with their redial state.
    package var knownPeers: [KnownPeerStatus] {
        loop.sync {
            let now = clock.now
            var since: [PeerKey: Double] = [:]
            for (id, connection) in connections {
                guard let peer = connection.peer, sessions[id] != nil, let time = addresses.since[id] else { continue }
                since[PeerKey(peer)] = time
            }
            func retry(_ key: DialTarget.Key) -> (Double?, String?) {
                guard let target = addresses.targets[key] else { return (nil, nil) }
                let next = target.dialing ? nil : Double(target.due > now ? target.due - now : 0) / 1e9
                return (next, target.lastError)
            }
            let peers = addresses.book.peers.map { peer in
                let (next, error) = since[peer.key] == nil ? retry(.peer(peer.key)) : (nil, nil)
                return KnownPeerStatus(
                    key: peer.key.rawValue, name: peer.name, replica: peer.replica, connectedSince: since[peer.key],
                    lastSeen: peer.lastSeen, addresses: peer.addresses, nextRetry: next, lastError: error)
            }
            let pending = addresses.book.pending.map { entry in
                let (next, error) = retry(.address(entry.address))
                return KnownPeerStatus(
                    key: nil, name: nil, replica: nil, connectedSince: nil, lastSeen: nil, addresses: [entry],
                    nextRetry: next, lastError: error)
            }
            return peers + pending
        }
    }
}
