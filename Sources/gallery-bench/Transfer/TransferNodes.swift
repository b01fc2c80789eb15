import Foundation
import GalleryControl
import GalleryHost
import GalleryModel
import GalleryNode
import GalleryStorage
import GalleryWire
import Synchronization

/// Two nodes in this process, each a `GalleryServer` on a temporary directory, on 127.0.0.1:
/// `source` (A) holds the images; `sink` (B) dials A and is where they are dropped. Drags go to B
/// through `ControlClient`, over the sink's control socket, as `gallery -C B drag` sends them.
final class TransferNodes: Sendable {
    let root: URL
    let source: GalleryServer
    let sink: GalleryServer
    /// When A applied each placeholder (by item ID), and when B applied each commit (by item ID).
    let placeholdersOnSource = ArrivalTimes()
    let commitsOnSink = ArrivalTimes()
    private let nextRequest = Atomic<Int>(0)

    /// Two nodes whose link is sealed as always, or, with `sealed` false, left unsealed on both
    /// ends (the baseline that shows what sealing costs).
    init(sealed: Bool = true) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-bench-transfer-\(UUID().uuidString)")
        let sourceDirectory = root.appendingPathComponent("a")
        let configure = { (configuration: inout NodeConfiguration) in configuration.sealsRecords = sealed }
        source = try GalleryServer(directory: sourceDirectory, name: "a", log: .silent, configure: configure)
        guard let address = try source.start() else { throw BenchFailure.failed("transfer: node A has no address") }
        do {
            sink = try GalleryServer(
                directory: root.appendingPathComponent("b"), name: "b", peers: [address],
                secretFile: sourceDirectory.appendingPathComponent("secret"), log: .silent, configure: configure)
            try sink.start()
        } catch {
            source.stop()
            throw error
        }
        let live = { (peers: [PeerStatus]) in peers.contains { $0.state == .live } }
        guard sink.node.waitForPeers(timeout: .seconds(10), until: live),
              source.node.waitForPeers(timeout: .seconds(10), until: live),
              sink.node.wait(timeout: .seconds(10), until: { $0.hasGallery("a") }) else {
            stop()
            throw BenchFailure.failed("transfer: the two nodes did not connect")
        }
        let placeholders = placeholdersOnSource
        source.node.observe { ops in
            let now = DispatchTime.now().uptimeNanoseconds
            for op in ops {
                guard case .insert(_, _, _, let items) = op.action else { continue }
                for (offset, item) in items.enumerated() where item.isPlaceholder {
                    placeholders.record(op.id.advanced(by: offset), at: now)
                }
            }
        }
        let commits = commitsOnSink
        sink.node.observe { ops in
            let now = DispatchTime.now().uptimeNanoseconds
            for op in ops {
                if case .commit(let item) = op.action { commits.record(item, at: now) }
            }
        }
    }

    /// Stops both nodes and deletes their directories.
    func stop() {
        sink.stop()
        source.stop()
        try? FileManager.default.removeItem(at: root)
    }

    /// Stores each image as a blob on A, inserts them into A's gallery in one op, and waits until
    /// B knows them. Returns their item IDs, in order.
    func addImages(_ images: [[UInt8]], titled prefix: String) throws -> [OpID] {
        guard let blobs = source.node.configuration.blobs as? BlobStore else { throw BenchFailure.failed("transfer: node A keeps no blobs") }
        let drafts = try images.enumerated().map { index, bytes in
            ItemDraft(fields: [
                .title: .text("\(prefix)\(index).png"), .contentHash: .text(try blobs.put(bytes)),
                .byteSize: .integer(Int64(bytes.count)), .mediaType: .text("image/png"), .aspectRatio: .number(1),
            ])
        }
        let op = try source.node.perform { replica in
            try replica.insert(drafts, into: "a", at: replica.count(in: "a"))
        }
        let ids = (0..<images.count).map { op.id.advanced(by: $0) }
        guard sink.node.wait(timeout: .seconds(30), until: { replica in ids.allSatisfy { replica.item($0) != nil } }) else {
            throw BenchFailure.failed("transfer: B did not receive the items added on A")
        }
        try settleThumbnails()
        return ids
    }

    /// Waits until neither node is still making thumbnails of what was just added, so that a
    /// latency measured next is the drop's, not the drop's plus the set-up's leftover work.
    func settleThumbnails() throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while (source.node.thumbnails?.pending ?? 0) + (sink.node.thumbnails?.pending ?? 0) > 0 {
            guard ContinuousClock.now < deadline else { throw BenchFailure.failed("transfer: thumbnails still being made after 120 s") }
            usleep(5_000)
        }
    }

    /// Sends `drag ITEM --to b` to B, as the command line does, and returns the placeholder B
    /// inserted for it.
    ///
    /// A drag refused because the node runs its most commands at once (nothing was done) is sent
    /// again after a millisecond, as a client would.
    func drag(_ item: OpID) throws -> OpID {
        var response: ControlResponse
        repeat {
            let request = ControlRequest(id: requestID(), command: .drag(DragRequest(items: [.item(.id(item))], gallery: "b")))
            response = try ControlClient.send(request, to: sink.directory, timeout: .seconds(30))
            if response.error?.hasPrefix("the node is busy") == true { usleep(1_000) } else { break }
        } while true
        guard let drop = response.reply?.drops?.first, drop.action == .placeholder,
              let placeholder = OpID(drop.item) else {
            throw BenchFailure.failed("transfer: drag of \(item) answered \(response.error ?? "\(response.reply?.drops ?? [])")")
        }
        return placeholder
    }

    /// A command that changes nothing (`galleries`), sent to B: the cost of a control round trip
    /// (connection, handshake, JSON) without the drop.
    func ping() throws {
        let response = try ControlClient.send(ControlRequest(id: requestID(), command: .galleries), to: sink.directory)
        guard response.ok else { throw BenchFailure.failed("transfer: galleries answered \(response.error ?? "?")") }
    }

    /// Waits until B has committed every placeholder of `ids` (as ready items).
    func waitForCommits(_ ids: [OpID], timeout: Duration) -> Bool {
        sink.node.wait(timeout: timeout) { replica in
            ids.allSatisfy { replica.item($0).map { $0.state == .ready && !$0.isDeleted } ?? false }
        }
    }

    private func requestID() -> Int {
        nextRequest.add(1, ordering: .relaxed).newValue
    }
}

/// Uptimes (nanoseconds) at which ops were seen, by item ID, recorded by node observers.
///
/// Observers run on a thread of their own (`NodeEvents`), after the replica shows the op: a reader
/// waits for the record (`time(of:timeout:)`) rather than taking its absence for an answer.
final class ArrivalTimes: Sendable {
    private let times = Mutex<[OpID: UInt64]>([:])

    func record(_ id: OpID, at time: UInt64) {
        times.withLock { $0[id] = time }
    }

    /// The time of `id`, waiting up to `timeout` for its observer to record it.
    func time(of id: OpID, timeout: Duration = .seconds(10)) -> UInt64? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let time = times.withLock({ $0[id] }) { return time }
            guard ContinuousClock.now < deadline else { return nil }
            usleep(200)
        }
    }
}
