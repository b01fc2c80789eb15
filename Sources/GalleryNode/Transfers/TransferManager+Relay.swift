import Foundation
import GalleryModel

/// Relaying bytes across hops: a node asked for a blob it lacks, but that one of its items names,
/// fetches the blob for itself, so that a node two hops away from the bytes gets them on a retry.
extension TransferManager {
    /// How long a relay keeps trying to get bytes no placeholder of this node waits for.
    static let relayTimeout: TimeInterval = 60

    /// Starts fetching a blob a peer asked for, unless this node is already fetching it. Best
    /// effort: one round over the connected peers, the nodes that added the item first; the
    /// requester, told `not_found` meanwhile, asks again later.
    func relay(_ item: Item, hash: String, size: Int) {
        lock.withLock {
            guard running, downloads[hash] == nil, !blobs.contains(hash) else { return }
            var download = Download(
                hash: hash, size: size, placeholders: [], preferred: [item.id.replica] + (item.origin.map { [$0.replica] } ?? []))
            download.relayDeadline = calendarNow.addingTimeInterval(Self.relayTimeout)
            downloads[hash] = download
            requestPass()
        }
    }

    /// Forgets a download no placeholder waits for any more (a relay or a demand that ended or
    /// failed): answers its readers with `failure`, stops its fetch and deletes its partial file.
    /// Caller holds `lock`.
    func dropUnwanted(_ hash: String, failure: DemandFailure = .notHeld) {
        guard var download = downloads[hash], download.placeholders.isEmpty else { return }
        answerDemands(&download, .failure(failure))
        downloads[hash] = nil
        if case .fetching(let connection, let request, _, _) = download.phase {
            requests[request] = nil
            connection.send(.cancel(id: request))
        }
        download.writer?.cancel()
    }
}
