import Foundation
import GalleryIO

/// Redial from both sides (protocol.md, "Addresses"): the node's side of `Redial`. Every peer in
/// the address book that is not connected, whichever side dialed first, and every address the
/// user gave that no peer has answered at yet, is offered to each pass; the node dials the
/// attempts it starts and reports how each ended. When both sides dial at once, the handshake's
/// duplicate rule keeps one connection, the same on both sides (`PeerRegistry.duplicateCloses`).
extension SyncNode {
    /// Starts every attempt that is due. On the loop (the liveness pass, and when the book changes).
    func redialPass(now: UInt64) {
        guard isRunning else { return }
        // The set of connected keys is made only when some peer has an address to dial (inbound
        // peers that announce none are the many, and this runs ten times a second).
        var connected: Set<PeerKey>?
        var wanted: [(key: DialTarget.Key, addresses: [String])] = []
        for peer in addresses.book.peers where !peer.addresses.isEmpty {
            if connected == nil { connected = connectedKeys }
            guard connected?.contains(peer.key) == false else { continue }
            wanted.append((.peer(peer.key), peer.addresses.map(\.address)))
        }
        for entry in addresses.book.pending { wanted.append((.address(entry.address), [entry.address])) }
        let badAddressDelay = UInt64(max(configuration.reconnect.maximum.nanoseconds, 0))
        let attempts = addresses.redial.pass(wanted: wanted, now: now, badAddressDelay: badAddressDelay)
        for attempt in attempts { startDial(attempt.endpoint, for: attempt.key) }
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
        let gotThrough = connection.map(Self.resetsBackoff) ?? false
        let error = failure ?? connection?.closeDescription.map { "\(address): \($0)" }
        let first = addresses.redial.attemptEnded(key, gotThrough: gotThrough, error: error, now: clock.now) { attempt in
            var generator = EnvironmentRandom(source: configuration.environment.random)
            return UInt64(max(configuration.reconnect.delay(attempt: attempt, using: &generator).nanoseconds, 0))
        }
        if first, let failure { configuration.log("\(configuration.name): cannot reach \(address): \(failure)") }
    }

    /// The peers in the book, connected or not, and the addresses still waiting for an answer,
    /// with their redial state.
    package var knownPeers: [KnownPeerStatus] {
        loop.sync {
            let now = clock.now
            var since: [PeerKey: Double] = [:]
            for (id, connection) in connections {
                guard let peer = connection.peer, sessions[id] != nil, let time = peerRegistry.since[id] else { continue }
                since[PeerKey(peer)] = time
            }
            let peers = addresses.book.peers.map { peer in
                let (next, error) = since[peer.key] == nil ? addresses.redial.retry(.peer(peer.key), now: now) : (nil, nil)
                return KnownPeerStatus(
                    key: peer.key.rawValue, name: peer.name, replica: peer.replica, connectedSince: since[peer.key],
                    lastSeen: peer.lastSeen, addresses: peer.addresses, nextRetry: next, lastError: error)
            }
            let pending = addresses.book.pending.map { entry in
                let (next, error) = addresses.redial.retry(.address(entry.address), now: now)
                return KnownPeerStatus(
                    key: nil, name: nil, replica: nil, connectedSince: nil, lastSeen: nil, addresses: [entry],
                    nextRetry: next, lastError: error)
            }
            return peers + pending
        }
    }
}
