import Foundation
import GalleryCrypto
import GalleryModel
import GalleryWire

/// Which connected peer holds which blobs, asked when a decision needs it (protocol.md, section
/// 8.2): before evicting a cached original, and for `status`. A question is one `holds_query` of
/// at most 1,024 hashes per peer, answered by one `holds` bitmap: no standing traffic, no message
/// per blob per peer, and what is asked is bounded by the hashes the decision is about.
///
/// Also answers the peers' `holds_query` from this node's blob store.
///
/// `@unchecked Sendable`: the questions in flight are guarded by `lock`; `node` and `serving` are
/// set once, by the node's `init`, before any use.
package final class AvailabilityBook: @unchecked Sendable {
    /// How long a question waits for peers' answers; a peer silent for this long holds nothing
    /// as far as the question is concerned.
    static let answerTimeout: TimeInterval = 3

    private struct Question {
        let connection: Int
        let hashes: [String]
        var bitmap: [UInt8]?
    }

    weak var node: SyncNode?
    private let lock = NSCondition()
    private var nextID: UInt64 = 0
    private var questions: [UInt64: Question] = [:]
    /// Where peers' `holds_query` are answered: a lane of the node's workers, set with `node`.
    var serving: (any NodeExecutor)?

    /// For each of `hashes`, the names of the connected peers that say they hold it (none: no
    /// reachable node is known to hold it). Waits for the answers, at most `answerTimeout`: not
    /// on the node's loop.
    package func holders(of hashes: [String], timeout: TimeInterval = AvailabilityBook.answerTimeout) -> [String: [String]] {
        guard let node, !hashes.isEmpty else { return [:] }
        let peers = node.fetchPeers()
        var asked: [(id: UInt64, peer: String)] = []
        var sends: [(Connection, Message)] = []
        lock.withLock {
            for peer in peers {
                var start = 0
                while start < hashes.count {
                    let batch = Array(hashes[start..<min(hashes.count, start + Message.maximumHoldsQuery)])
                    start += batch.count
                    nextID += 1
                    questions[nextID] = Question(connection: peer.connection.id, hashes: batch)
                    asked.append((nextID, peer.name))
                    sends.append((peer.connection, .holdsQuery(id: nextID, hashes: batch.map(ThumbnailReplicator.bytes(ofHex:)))))
                }
            }
        }
        for (connection, message) in sends { _ = connection.send(message) }
        let deadline = Date().addingTimeInterval(timeout)
        var result: [String: [String]] = [:]
        lock.withLock {
            while asked.contains(where: { questions[$0.id]?.bitmap == nil }), lock.wait(until: deadline) {}
            for (id, peer) in asked {
                guard let question = questions.removeValue(forKey: id), let bitmap = question.bitmap else { continue }
                for (index, hash) in question.hashes.enumerated()
                where index / 8 < bitmap.count && bitmap[index / 8] & (1 << (index % 8)) != 0 {
                    result[hash, default: []].append(peer)
                }
            }
        }
        return result
    }

    /// The replicas of the connected peers that say they hold `hash`: one `holds_query` to every
    /// peer at once, answered as soon as one says it holds it, or when all have answered, or after
    /// `timeout` (a silent peer holds nothing as far as this is concerned). Where a request for
    /// bytes goes first when the nodes that added the item are not connected. Not on the loop.
    package func replicasHolding(_ hash: String, timeout: TimeInterval = 1) -> [ReplicaID] {
        guard let node else { return [] }
        let peers = node.fetchPeers()
        guard !peers.isEmpty else { return [] }
        var asked: [(id: UInt64, replica: ReplicaID)] = []
        lock.withLock {
            for peer in peers {
                nextID += 1
                questions[nextID] = Question(connection: peer.connection.id, hashes: [hash])
                asked.append((nextID, peer.replica))
            }
        }
        let query = [ThumbnailReplicator.bytes(ofHex: hash)]
        for (peer, question) in zip(peers, asked) { _ = peer.connection.send(.holdsQuery(id: question.id, hashes: query)) }
        let deadline = Date().addingTimeInterval(timeout)
        return lock.withLock {
            func holding() -> [ReplicaID] {
                asked.filter { questions[$0.id]?.bitmap?.first.map { $0 & 1 != 0 } ?? false }.map(\.replica)
            }
            while holding().isEmpty, asked.contains(where: { questions[$0.id]?.bitmap == nil }), lock.wait(until: deadline) {}
            let found = holding()
            for question in asked { questions[question.id] = nil }
            return found
        }
    }

    /// A peer's `holds`: the answer to one of this node's questions to that peer.
    func answered(_ id: UInt64, bitmap: [UInt8], from connection: Connection) {
        lock.withLock {
            guard let question = questions[id], question.connection == connection.id, question.bitmap == nil else { return }
            questions[id]?.bitmap = bitmap
            lock.broadcast()
        }
    }

    /// A connection closed: its questions are answered "nothing held".
    func connectionClosed(_ connection: Connection) {
        lock.withLock {
            for (id, question) in questions where question.connection == connection.id && question.bitmap == nil {
                questions[id]?.bitmap = []
            }
            lock.broadcast()
        }
    }

    /// Answers a peer's `holds_query` from the blob store, off the connection's event loop.
    func serve(_ id: UInt64, hashes: [[UInt8]], on connection: Connection) {
        serving?.async { [weak self] in
            let blobs = self?.node?.configuration.blobs
            var bitmap = [UInt8](repeating: 0, count: (hashes.count + 7) / 8)
            for (index, hash) in hashes.enumerated() where blobs?.contains(SHA256.hex(hash)) == true {
                bitmap[index / 8] |= 1 << (index % 8)
            }
            _ = connection.send(.holds(id: id, bitmap: bitmap))
        }
    }
}
