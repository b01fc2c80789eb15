import Foundation
import GalleryModel
import Synchronization

/// `--keep all`: every original an item names is fetched as soon as the node learns of it, a few
/// at a time (`maximumInFlight`, through the transfer manager's verified, resumable downloads). An
/// original no connected peer holds is parked and asked again when a peer connects.
package final class EagerOriginals: Sendable {
    /// The originals to fetch, in flight and parked, and the peers seen live.
    private struct State {
        var queue: [String] = []
        var queued: Set<String> = []
        var inFlight: Set<String> = []
        var parked: Set<String> = []
        var stopped = false
        /// The connections whose sessions went live.
        var livePeers: Set<Int> = []
    }

    /// Originals fetched at once.
    static let maximumInFlight = 4

    /// The node, set by `NodePolicies.attach`.
    var node: SyncNode? {
        get { nodeSlot.object }
        set { nodeSlot.object = newValue }
    }
    private let nodeSlot = WeakSlot<SyncNode>()
    private let state = Mutex(State())

    /// Originals waiting: queued or being fetched, and parked.
    package var waiting: (fetching: Int, parked: Int) {
        state.withLock { ($0.queued.count + $0.inFlight.count, $0.parked.count) }
    }

    /// Wants these originals (those the store lacks are fetched).
    func want(_ hashes: [String]) {
        state.withLock { state in
            for hash in hashes where !state.inFlight.contains(hash) && !state.parked.contains(hash) && state.queued.insert(hash).inserted {
                state.queue.append(hash)
            }
        }
        pump()
    }

    /// A peer's session went live: when it is a connection not seen live before, parked originals
    /// are asked again.
    func peerJoined(_ connection: Int) {
        let new = state.withLock { state -> Bool in
            guard state.livePeers.insert(connection).inserted else { return false }
            for hash in state.parked where state.queued.insert(hash).inserted { state.queue.append(hash) }
            state.parked = []
            return true
        }
        if new { pump() }
    }

    /// A peer's connection closed.
    func peerLeft(_ connection: Int) {
        state.withLock { _ = $0.livePeers.remove(connection) }
    }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.queue = []
            state.queued = []
        }
    }

    /// Starts fetches up to `maximumInFlight`.
    private func pump() {
        guard let node, let blobs = node.configuration.blobs else { return }
        let started = state.withLock { state -> [String] in
            var started: [String] = []
            while !state.stopped, state.inFlight.count < Self.maximumInFlight, !state.queue.isEmpty {
                let hash = state.queue.removeFirst()
                state.queued.remove(hash)
                if blobs.contains(hash) { continue }
                state.inFlight.insert(hash)
                started.append(hash)
            }
            return started
        }
        for hash in started {
            DispatchQueue.global(qos: .utility).async { [weak self] in
                guard let self else { return }
                let asked = Self.fetch(hash, on: node) { [weak self] result in
                    self?.finished(hash, parked: (try? result.get()) == nil)
                }
                if !asked { finished(hash, parked: false) }
            }
        }
    }

    private func finished(_ hash: String, parked park: Bool) {
        state.withLock { state in
            state.inFlight.remove(hash)
            if park && !state.stopped { state.parked.insert(hash) }
        }
        pump()
    }

    /// Fetches the original `hash` that an item names for good: not a cache entry. False,
    /// calling nothing, when no item names it.
    private static func fetch(_ hash: String, on node: SyncNode, answer: @escaping TransferManager.DemandAnswer) -> Bool {
        guard let transfers = node.transfers, let item = node.read({ $0.item(withContentHash: hash) }),
              let size = item.byteSize, size >= 0 else { return false }
        transfers.demand(hash, size: Int(size), preferred: [item.id.replica] + (item.origin.map { [$0.replica] } ?? []), answer: answer)
        return true
    }
}
