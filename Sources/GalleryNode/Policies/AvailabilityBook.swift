import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryWire
import Synchronization

/// Which connected peer holds which blobs, asked when a decision needs it (protocol.md, section
/// 8.2): before evicting a cached original, and for `status`. A question is one `holds_query` of
/// at most 1,024 hashes per peer, answered by one `holds` bitmap: no standing traffic, no message
/// per blob per peer, and what is asked is bounded by the hashes the decision is about.
///
/// Also answers the peers' `holds_query` from this node's blob store.
package final class AvailabilityBook: Sendable {
    /// How long a question waits for peers' answers; a peer silent for this long holds nothing
    /// as far as the question is concerned.
    static let answerTimeout: TimeInterval = 3

    private struct Question {
        let connection: Int
        let hashes: [String]
        var bitmap: [UInt8]?
    }

    /// The questions in flight by number, and the last number given.
    private struct Questions {
        var nextID: UInt64 = 0
        var byID: [UInt64: Question] = [:]

        /// Whether some of `ids` still wait for their answer.
        func unanswered(_ ids: [UInt64]) -> Bool {
            ids.contains { byID[$0]?.bitmap == nil }
        }
    }

    /// The node, set by `NodePolicies.attach`.
    var node: SyncNode? {
        get { nodeSlot.object }
        set { nodeSlot.object = newValue }
    }
    private let nodeSlot = WeakSlot<SyncNode>()
    private let questions = ConditionLock(Questions())
    /// Where peers' `holds_query` are answered: a lane of the node's workers, set with `node`.
    var serving: (any NodeExecutor)? {
        get { servingLane.withLock { $0 } }
        set { servingLane.withLock { $0 = newValue } }
    }
    private let servingLane = Mutex<(any NodeExecutor)?>(nil)

    /// For each of `hashes`, the names of the connected peers that say they hold it (none: no
    /// reachable node is known to hold it). Waits for the answers, at most `answerTimeout`: not
    /// on the node's loop.
    package func holders(of hashes: [String], timeout: TimeInterval = AvailabilityBook.answerTimeout) -> [String: [String]] {
        guard let node, !hashes.isEmpty else { return [:] }
        let peers = node.fetchPeers()
        var asked: [(id: UInt64, peer: String)] = []
        var sends: [(Connection, Message)] = []
        questions.withLock { questions in
            for peer in peers {
                var start = 0
                while start < hashes.count {
                    let batch = Array(hashes[start..<min(hashes.count, start + Message.maximumHoldsQuery)])
                    start += batch.count
                    questions.nextID += 1
                    let id = questions.nextID
                    questions.byID[id] = Question(connection: peer.connection.id, hashes: batch)
                    asked.append((id, peer.name))
                    sends.append((peer.connection, .holdsQuery(id: id, hashes: batch.map(ThumbnailReplicator.bytes(ofHex:)))))
                }
            }
        }
        for (connection, message) in sends { _ = connection.send(message) }
        let deadline = Date().addingTimeInterval(timeout)
        var result: [String: [String]] = [:]
        let ids = asked.map(\.id)
        _ = questions.withLock(waitingUntil: deadline) { questions in questions.unanswered(ids) ? nil : () }
        questions.withLock { questions in
            for (id, peer) in asked {
                guard let question = questions.byID.removeValue(forKey: id), let bitmap = question.bitmap else { continue }
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
        questions.withLock { questions in
            for peer in peers {
                questions.nextID += 1
                questions.byID[questions.nextID] = Question(connection: peer.connection.id, hashes: [hash])
                asked.append((questions.nextID, peer.replica))
            }
        }
        let query = [ThumbnailReplicator.bytes(ofHex: hash)]
        for (peer, question) in zip(peers, asked) { _ = peer.connection.send(.holdsQuery(id: question.id, hashes: query)) }
        let deadline = Date().addingTimeInterval(timeout)
        let ids = asked.map(\.id)
        func holding(_ questions: Questions) -> [ReplicaID] {
            asked.filter { questions.byID[$0.id]?.bitmap?.first.map { $0 & 1 != 0 } ?? false }.map(\.replica)
        }
        _ = questions.withLock(waitingUntil: deadline) { questions in
            holding(questions).isEmpty && questions.unanswered(ids) ? nil : ()
        }
        return questions.withLock { questions in
            let found = holding(questions)
            for id in ids { questions.byID[id] = nil }
            return found
        }
    }

    /// A peer's `holds`: the answer to one of this node's questions to that peer.
    func answered(_ id: UInt64, bitmap: [UInt8], from connection: Connection) {
        let changed = questions.withLock { questions -> Bool in
            guard let question = questions.byID[id], question.connection == connection.id, question.bitmap == nil else { return false }
            questions.byID[id]?.bitmap = bitmap
            return true
        }
        if changed { questions.broadcast() }
    }

    /// A connection closed: its questions are answered "nothing held".
    func connectionClosed(_ connection: Connection) {
        questions.withLock { questions in
            for (id, question) in questions.byID where question.connection == connection.id && question.bitmap == nil {
                questions.byID[id]?.bitmap = []
            }
        }
        questions.broadcast()
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
