import Foundation
import GalleryModel

/// `--keep all`: every original an item names is fetched as soon as the node learns of it, a few
/// at a time (`maximumInFlight`, through the transfer manager's verified, resumable downloads). An
/// original no connected peer holds is parked and asked again when a peer connects.
///
/// `@unchecked Sendable`: the queue is guarded by `lock`.
package final class EagerOriginals: @unchecked Sendable {
    /// Originals fetched at once.
    static let maximumInFlight = 4

    weak var node: SyncNode?
    private let lock = NSLock()
    private var queue: [String] = []
    private var queued: Set<String> = []
    private var inFlight: Set<String> = []
    private var parked: Set<String> = []
    private var stopped = false
    /// The connections whose sessions went live.
    private var livePeers: Set<Int> = []

    /// Originals waiting: queued or being fetched, and parked.
    package var waiting: (fetching: Int, parked: Int) {
        lock.withLock { (queued.count + inFlight.count, parked.count) }
    }

    /// Wants these originals (those the store lacks are fetched).
    func want(_ hashes: [String]) {
        lock.withLock {
            for hash in hashes where !inFlight.contains(hash) && !parked.contains(hash) && queued.insert(hash).inserted {
                queue.append(hash)
            }
        }
        pump()
    }

    /// A peer's session went live: when it is a connection not seen live before, parked originals
    /// are asked again.
    func peerJoined(_ connection: Int) {
        let new = lock.withLock { () -> Bool in
            guard livePeers.insert(connection).inserted else { return false }
            for hash in parked where queued.insert(hash).inserted { queue.append(hash) }
            parked = []
            return true
        }
        if new { pump() }
    }

    /// A peer's connection closed.
    func peerLeft(_ connection: Int) {
        lock.withLock { _ = livePeers.remove(connection) }
    }

    func stop() {
        lock.withLock {
            stopped = true
            queue = []
            queued = []
        }
    }

    /// Starts fetches up to `maximumInFlight`.
    private func pump() {
        guard let node, let blobs = node.configuration.blobs else { return }
        let started = lock.withLock { () -> [String] in
            var started: [String] = []
            while !stopped, inFlight.count < Self.maximumInFlight, !queue.isEmpty {
                let hash = queue.removeFirst()
                queued.remove(hash)
                if blobs.contains(hash) { continue }
                inFlight.insert(hash)
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
        lock.withLock {
            inFlight.remove(hash)
            if park && !stopped { parked.insert(hash) }
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
