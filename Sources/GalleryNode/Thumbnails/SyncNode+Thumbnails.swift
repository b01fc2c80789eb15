import Foundation
import GalleryModel

/// Thumbnails as the node makes and serves them: made when an original arrives (added, uploaded,
/// dragged, fetched on demand), and asked for by hash and size by the adapters (a page's
/// `GET /thumbnails/HASH/SIZE`).
extension SyncNode {
    /// Subscribes the thumbnail maker to the node's events: the originals that ops name and that
    /// this node holds get their thumbnails made. Called once, from `init`. The handler only
    /// queues work, so it runs on a lane of the node's workers, not a thread of its own.
    func watchForThumbnails() {
        guard thumbnails != nil else { return }
        events.subscribe(on: workers.makeLane("thumbnail events")) { [weak self] event in
            guard let self else { return }
            switch event {
            case .applied(let ops): contentArrived(Self.contentHashes(in: ops))
            case .resyncNeeded: sweepThumbnails()
            case .peerChanged(let connection, let status?) where status.state == .live:
                thumbnailReplicator?.peerJoined(connection)
                policies.eager?.peerJoined(connection)
                policies.cache?.evictIfOverBudget()
            case .peerChanged(let connection, nil): policies.eager?.peerLeft(connection)
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

    /// Makes the thumbnails of every held original some item names and that has none: at start
    /// (originals stored before this node made thumbnails) and after dropped events.
    package func sweepThumbnails() {
        policies.cache?.evictIfOverBudget()
        guard thumbnails != nil else { return }
        DispatchQueue.global(qos: .utility).async { [weak self] in
            guard let self, condition.withLock({ running }) else { return }
            contentArrived(namedContentHashes())
        }
    }

    /// Every content hash the live items of this node name, once each. Waits for the loop.
    package func namedContentHashes() -> [String] {
        let hashes = read { replica in
            replica.galleries.flatMap { (try? replica.items(in: $0)) ?? [] }.compactMap(\.contentHash)
        }
        var seen: Set<String> = []
        return hashes.filter { seen.insert($0).inserted }
    }

    /// Originals that items name arrived or may have: those held get their thumbnails made, the
    /// others' thumbnails are fetched from peers.
    func contentArrived(_ hashes: [String]) {
        guard let thumbnails, let blobs = configuration.blobs else { return }
        var fetched: [String] = []
        var unheld: [String] = []
        for hash in hashes {
            let held = blobs.contains(hash)
            if !held { unheld.append(hash) }
            guard !thumbnails.isComplete(hash) else { continue }
            if held { thumbnails.make(hash) } else { fetched.append(hash) }
        }
        thumbnailReplicator?.want(fetched)
        policies.eager?.want(unheld)
    }

    /// An original is now held (a download finished): its thumbnails are made.
    func originalStored(_ hash: String) {
        guard let thumbnails, !thumbnails.isComplete(hash) else { return }
        thumbnails.make(hash)
    }

    /// The thumbnail of `hash` at `size`: from the derived store, else made now from the held
    /// original, else fetched from a peer, else made from the original fetched from a peer; `answer` is called once with its
    /// JPEG bytes or why there is none (on another thread, or at once). Not on the loop: it reads
    /// the replica and the disk.
    package func demandThumbnail(of hash: String, size: ThumbnailSize, answer: @escaping @Sendable (Result<[UInt8], ThumbnailFailure>) -> Void) {
        guard let thumbnails, let blobs = configuration.blobs else { return answer(.failure(.unknown)) }
        let derived = thumbnails.derived
        if let bytes = derived.thumbnail(of: hash, size: size.rawValue) { return answer(.success(bytes)) }
        if let reason = derived.failure(of: hash) { return answer(.failure(.undecodable(reason))) }
        let stored: @Sendable (Result<Void, ThumbnailFailure>) -> Void = { result in
            answer(result.flatMap {
                derived.thumbnail(of: hash, size: size.rawValue).map { .success($0) }
                    ?? .failure(.storage("the thumbnail was made but cannot be read"))
            })
        }
        if blobs.contains(hash) { return thumbnails.make(hash, urgent: true, answer: stored) }
        guard read({ $0.item(withContentHash: hash) }) != nil else { return answer(.failure(.unknown)) }
        // A peer's thumbnail first (a few hundred KB); the original only when no peer has one.
        let fromOriginal: @Sendable () -> Void = { [weak self] in
            guard let self else { return answer(.failure(.stopped)) }
            let asked = demandBytes(named: hash) { result in
                switch result {
                case .success: thumbnails.make(hash, urgent: true, answer: stored)
                case .failure(let failure): answer(.failure(.unavailable(failure)))
                }
            }
            if !asked { answer(.failure(.unknown)) }
        }
        guard let thumbnailReplicator else { return fromOriginal() }
        thumbnailReplicator.fetchNow(hash) { got in
            if got, let bytes = derived.thumbnail(of: hash, size: size.rawValue) { answer(.success(bytes)) } else { fromOriginal() }
        }
    }
}
