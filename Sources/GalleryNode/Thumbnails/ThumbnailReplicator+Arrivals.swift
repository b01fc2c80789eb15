import Foundation
import GalleryModel

/// Thumbnails as the node makes and serves them: made when an original arrives (added, uploaded,
/// dragged, fetched on demand) or fetched from peers when it does not, and asked for by hash and
/// size by the adapters (a page's `GET /thumbnails/HASH/SIZE`). The replicator watches the node's
/// events for this; it exists exactly when the node makes thumbnails.
extension ThumbnailReplicator {
    /// Subscribes to `node`'s events: the originals that ops name and that the node holds get
    /// their thumbnails made, the others' are fetched; live peers are asked again. Called once,
    /// from the node's `init`. The handler only queues work, so it runs on a lane of the node's
    /// workers, not a thread of its own.
    func watch(_ node: SyncNode) {
        node.events.subscribe(on: node.workers.makeLane("thumbnail events")) { [weak self, weak node] event in
            guard let self, let node else { return }
            switch event {
            case .applied(let ops): contentArrived(Self.contentHashes(in: ops))
            case .resyncNeeded:
                node.policies.cache?.evictIfOverBudget()
                sweep()
            case .peerChanged(let connection, let status?) where status.state == .live:
                peerJoined(connection)
                node.policies.eager?.peerJoined(connection)
                node.policies.cache?.evictIfOverBudget()
            case .peerChanged(let connection, nil): node.policies.eager?.peerLeft(connection)
            case .transferProgress, .peerChanged: break
            }
        }
    }

    /// The content hashes that `ops` give items (inserted ready or set later); a commit's hash is
    /// the committed placeholder's, already named by its insert.
    static func contentHashes(in ops: [Op]) -> [String] {
        var hashes: [String] = []
        for op in ops {
            switch op.action {
            case .insert(_, _, _, let drafts):
                for draft in drafts { if let hash = draft.fields[.contentHash]?.text { hashes.append(hash) } }
            case .update(_, .contentHash, .text(let hash)):
                hashes.append(hash)
            default:
                break
            }
        }
        return hashes
    }

    /// Makes the thumbnails of every held original some item names and that has none, and
    /// fetches the others': at start (originals stored before this node made thumbnails) and
    /// after dropped events. Off the caller's thread: it waits for the node's loop.
    func sweep() {
        DispatchQueue.global(qos: .utility).async { [weak self] in
            guard let self, let node, node.isRunning else { return }
            let hashes = node.read { replica in
                replica.galleries.flatMap { (try? replica.items(in: $0)) ?? [] }.compactMap(\.contentHash)
            }
            var seen: Set<String> = []
            contentArrived(hashes.filter { seen.insert($0).inserted })
        }
    }

    /// Originals that items name arrived or may have: those held get their thumbnails made, the
    /// others' thumbnails are fetched from peers (and, under `--keep all`, the originals too).
    func contentArrived(_ hashes: [String]) {
        guard let node, let blobs = node.configuration.blobs else { return }
        var fetched: [String] = []
        var unheld: [String] = []
        for hash in hashes {
            let held = blobs.contains(hash)
            if !held { unheld.append(hash) }
            guard !maker.isComplete(hash) else { continue }
            if held { maker.make(hash) } else { fetched.append(hash) }
        }
        want(fetched)
        node.policies.eager?.want(unheld)
    }

    /// The thumbnail of `hash` at `size` from `replicator` (nil: the node makes no thumbnails,
    /// and `answer` is told so at once).
    package static func demand(of hash: String, size: ThumbnailSize, from replicator: ThumbnailReplicator?,
                               answer: @escaping @Sendable (Result<[UInt8], ThumbnailFailure>) -> Void) {
        guard let replicator else { return answer(.failure(.unknown)) }
        replicator.demand(of: hash, size: size, answer: answer)
    }

    /// The thumbnail of `hash` at `size`: from the derived store, else made now from the held
    /// original, else fetched from a peer, else made from the original fetched from a peer;
    /// `answer` is called once with its JPEG bytes or why there is none (on another thread, or
    /// at once). Not on the node's loop: it reads the replica and the disk.
    func demand(of hash: String, size: ThumbnailSize, answer: @escaping @Sendable (Result<[UInt8], ThumbnailFailure>) -> Void) {
        guard let node, let blobs = node.configuration.blobs else { return answer(.failure(.unknown)) }
        let maker = self.maker
        let derived = maker.derived
        if let bytes = derived.thumbnail(of: hash, size: size.rawValue) { return answer(.success(bytes)) }
        if let reason = derived.failure(of: hash) { return answer(.failure(.undecodable(reason))) }
        let stored: @Sendable (Result<Void, ThumbnailFailure>) -> Void = { result in
            answer(result.flatMap {
                derived.thumbnail(of: hash, size: size.rawValue).map { .success($0) }
                    ?? .failure(.storage("the thumbnail was made but cannot be read"))
            })
        }
        if blobs.contains(hash) { return maker.make(hash, urgent: true, answer: stored) }
        guard node.read({ $0.item(withContentHash: hash) }) != nil else { return answer(.failure(.unknown)) }
        // A peer's thumbnail first (a few hundred KB); the original only when no peer has one.
        let fromOriginal: @Sendable () -> Void = { [weak node] in
            guard let node else { return answer(.failure(.stopped)) }
            let asked = node.demandBytes(named: hash) { result in
                switch result {
                case .success: maker.make(hash, urgent: true, answer: stored)
                case .failure(let failure): answer(.failure(.unavailable(failure)))
                }
            }
            if !asked { answer(.failure(.unknown)) }
        }
        fetchNow(hash) { got in
            if got, let bytes = derived.thumbnail(of: hash, size: size.rawValue) { answer(.success(bytes)) } else { fromOriginal() }
        }
    }
}
