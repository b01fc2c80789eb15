import Foundation
import GalleryModel
import Synchronization

/// Why bytes asked for on demand could not be had.
package enum DemandFailure: Error, Hashable, Sendable, LocalizedError {
    /// No peer is connected to ask.
    case noPeerConnected
    /// Every connected peer was asked and none holds the bytes.
    case notHeld
    /// The only peers that sent the bytes sent bytes that do not hash to the item's hash.
    case hashMismatch
    /// The peers asked sent nothing for this long (seconds).
    case timedOut(Int)
    /// More distinct blobs are being fetched on demand than `maximumDemands`.
    case busy
    /// The bytes could not be stored here.
    case storage(String)
    /// The node is stopping.
    case stopped
    /// The node that added the item, known here by name, is not connected: why no one else sent them.
    indirect case offline(holder: String, DemandFailure)

    /// The failure without the name of an offline holder.
    package var cause: DemandFailure {
        if case .offline(_, let cause) = self { cause.cause } else { self }
    }

    package var errorDescription: String? {
        switch self {
        case .noPeerConnected: "no peer is connected, so no node can send these bytes"
        case .notHeld: "no connected peer holds these bytes"
        case .hashMismatch: "the bytes peers sent do not match their hash, and no other connected peer holds them"
        case .timedOut(let seconds): "the peers holding these bytes sent nothing for \(seconds) s"
        case .busy: "too many pictures are being fetched from peers at once; try again shortly"
        case .storage(let reason): "cannot store the bytes: \(reason)"
        case .stopped: "the node is stopping"
        case .offline(let holder, let cause): "on \(holder), offline: \(cause.localizedDescription)"
        }
    }
}

/// Bytes on demand: a reader of this node (a page's `GET /blobs/HASH`, `gallery export`) asks for a
/// blob one of its items names and the store lacks. The blob is fetched by hash from the connected
/// peers in turn (the nodes that added the item first), verified, stored, then the reader is told;
/// with no holder among them the reader is told at once why. Readers of the same hash, and a drag or
/// relay fetching it already, share one `Download`.
extension TransferManager {
    /// The most distinct blobs fetched on demand at once: beyond, a demand is refused as `busy`
    /// (each page connection waits for one blob at a time, so this bounds a crowd of pages).
    static let maximumDemands = 64

    /// What a reader is told: the bytes are in the store, or why they are not.
    package typealias DemandAnswer = @Sendable (Result<Void, DemandFailure>) -> Void

    /// Fetches the blob `hash` of `size` bytes into the store unless it is there, then calls
    /// `answer` once (on another thread). Asks the `preferred` replicas first, then every other
    /// connected peer, one at a time; answers a failure as soon as every connected peer has said
    /// `not_found` (at once with no peer), or when the peers send nothing for `patience`.
    /// A `tap` takes the bytes as they are stored when the download has stored none yet.
    package func demand(_ hash: String, size: Int, preferred: [ReplicaID], tap: (any DemandTap)? = nil, answer: @escaping DemandAnswer) {
        let refusal = lock.withLock { () -> DemandFailure?? in
            guard running else { return .some(.stopped) }
            if blobs.contains(hash) { return .some(nil) }
            if downloads[hash] != nil {
                downloads[hash]!.demanders.append(answer)
                if let tap, downloads[hash]!.done == 0 { downloads[hash]!.taps.append(tap) }
                if downloads[hash]!.demandedAt == nil { downloads[hash]!.demandedAt = uptime }
                for replica in preferred where !downloads[hash]!.preferred.contains(replica) {
                    downloads[hash]!.preferred.append(replica)
                }
            } else {
                guard downloads.values.count(where: { !$0.demanders.isEmpty }) < Self.maximumDemands else { return .some(.busy) }
                var download = Download(hash: hash, size: size, placeholders: [], preferred: preferred)
                download.demanders = [answer]
                if let tap { download.taps = [tap] }
                download.demandedAt = uptime
                downloads[hash] = download
            }
            requestPass()
            return .none
        }
        switch refusal {
        case .none: break
        case .some(.none): answer(.success(()))
        case .some(.some(let failure)): answer(.failure(failure))
        }
    }

    /// How long the peers asked may send nothing before the readers waiting are answered: the peer
    /// timeout, after which a silent peer is taken as gone anyway (nanoseconds).
    var demandPatience: UInt64 {
        UInt64(clamping: max(node?.configuration.peerTimeout.nanoseconds ?? 5_000_000_000, 1_000_000_000))
    }

    /// Answers every reader waiting for a download and forgets them. Caller holds `lock`: the
    /// answers run on another thread, so that none waits for it.
    func answerDemands(_ download: inout Download, _ result: Result<Void, DemandFailure>) {
        guard !download.demanders.isEmpty else { return }
        let answers = download.demanders
        download.demanders = []
        download.taps = []
        download.demandedAt = nil
        DispatchQueue.global().async {
            for answer in answers { answer(result) }
        }
    }

    /// Answers the readers of a download that every connected peer was asked for, in vain. Caller
    /// holds `lock`.
    func answerUnheld(_ download: inout Download, peers: [FetchPeer]) {
        let failure: DemandFailure = if peers.isEmpty {
            .noPeerConnected
        } else if download.mismatch != nil {
            .hashMismatch
        } else {
            .notHeld
        }
        answerDemands(&download, .failure(failure))
    }

    /// Answers the readers of a download whose peers sent nothing for `demandPatience`; true when
    /// it did. Caller holds `lock`.
    func answerIfImpatient(_ download: inout Download, now: UInt64) -> Bool {
        guard let since = download.demandedAt, !download.demanders.isEmpty else { return false }
        if case .finishing = download.phase { return false }
        let patience = demandPatience
        guard now > since, now - since > patience else { return false }
        answerDemands(&download, .failure(.timedOut(Int(patience / 1_000_000_000))))
        return true
    }
}

/// Bytes on demand as the adapters ask for them: by the hash an item names.
extension SyncNode {
    /// The replicas to ask first for an item's bytes: the node that added it, then the one it was
    /// copied from.
    private static func holders(of item: Item) -> [ReplicaID] {
        [item.id.replica] + (item.origin.map { [$0.replica] } ?? [])
    }

    /// The replicas to ask first for `hash`: the node that added the item and the one it was copied
    /// from when one of them is connected; otherwise the connected peers that say they hold the
    /// bytes (the availability summary, protocol.md section 8.2: one `holds_query` to each peer at
    /// once), so that the request goes to a holder instead of asking each peer in turn. Not on the
    /// loop: it may wait for the peers' answers (at most 1 s).
    private func holders(of item: Item, hash: String) -> [ReplicaID] {
        let named = Self.holders(of: item)
        guard configuration.blobs?.contains(hash) != true else { return named }
        let connected = Set(fetchPeers().map(\.replica))
        guard !named.contains(where: connected.contains) else { return named }
        return policies.availability.replicasHolding(hash) + named
    }

    /// Fetches the bytes `hash` from a peer unless this node holds them, when one of its items names
    /// them (with their size): `answer` is called once, on another thread. Returns false, calling
    /// nothing, when no item names `hash` (the node fetches no bytes it has no use for) or it keeps
    /// no blobs. Waits for the node's inbox: not on a loop.
    package func demandBytes(named hash: String, tap: (any DemandTap)? = nil, answer: @escaping TransferManager.DemandAnswer) -> Bool {
        guard let transfers, let item = read({ $0.item(withContentHash: hash) }), let size = item.byteSize, size >= 0 else { return false }
        let held = configuration.blobs?.contains(hash) ?? true
        transfers.demand(hash, size: Int(size), preferred: holders(of: item, hash: hash), tap: tap) { [weak self] result in
            if case .success = result, !held { self?.policies.originalFetchedOnDemand(hash, size: Int(size)) }
            answer(result.mapError { self?.namingOfflineHolder($0, of: item) ?? $0 })
        }
        return true
    }

    /// `failure`, when no connected peer had the bytes, with the name of the node that added the
    /// item if this node knows it (its address book) and it is not connected: a reader learns where
    /// the picture is ("on alice, offline"). Not on the loop.
    private func namingOfflineHolder(_ failure: DemandFailure, of item: Item) -> DemandFailure {
        switch failure {
        case .noPeerConnected, .notHeld: break
        default: return failure
        }
        let adder = item.id.replica.description
        guard let known = knownPeers.first(where: { $0.replica == adder }), known.connectedSince == nil,
              let name = known.name else { return failure }
        return .offline(holder: name, failure)
    }

    /// Fetches the bytes of `item` from a peer unless this node holds them, and waits until they are
    /// stored (returns) or cannot be had (throws). The wait is bounded by the manager: it answers as
    /// soon as no connected peer holds them, or when the peers send nothing for the peer timeout.
    package func demandBytes(of item: Item) throws(DemandFailure) {
        guard let transfers, let hash = item.contentHash, let size = item.byteSize, size >= 0 else { throw .notHeld }
        let answered = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, DemandFailure>>(.failure(.stopped))
        let held = configuration.blobs?.contains(hash) ?? true
        transfers.demand(hash, size: Int(size), preferred: holders(of: item, hash: hash)) { [weak self] result in
            if case .success = result, !held { self?.policies.originalFetchedOnDemand(hash, size: Int(size)) }
            outcome.withLock { $0 = result }
            answered.signal()
        }
        answered.wait()
        try outcome.withLock { $0 }.mapError { namingOfflineHolder($0, of: item) }.get()
    }
}
