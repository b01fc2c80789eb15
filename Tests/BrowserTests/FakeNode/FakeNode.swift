import Foundation
import GalleryCrypto

/// An in-memory test double of one node as http-api.md describes it: galleries of items, blobs by
/// hash, change batches numbered for the event stream, uploads and cross-node drops. `FakeNodeServer`
/// puts it behind HTTP; the browser tests drive the real page against it. It is not the product's
/// node: no op log, no sync; a "mesh" is a few fakes that know each other (`peers`).
///
/// `@unchecked Sendable`: every mutable field is guarded by `condition`.
final class FakeNode: @unchecked Sendable {
    /// One item, with the fields of http-api.md's ITEM.
    struct Item {
        var id: String
        var title: String?
        var state = "ready"
        var hash: String?
        var bytes: Int?
        var mediaType: String?
        var aspectRatio: Double?
        var url: String?
        var progress: (done: Int, total: Int)?

        /// The ITEM JSON object (every key present).
        var json: [String: Any] {
            ["id": id, "title": title ?? NSNull(), "state": state, "hash": hash ?? NSNull(), "bytes": bytes ?? NSNull(),
             "mediaType": mediaType ?? NSNull(), "aspectRatio": aspectRatio ?? NSNull(), "url": url ?? NSNull(),
             "progress": progress.map { ["done": $0.done, "total": $0.total] } ?? NSNull()]
        }
    }

    /// A refusal, as http-api.md section 9 sends it.
    struct Refusal: Error {
        var status: Int
        var code: String
        var message: String
    }

    /// One message for event streams: a numbered change batch, or a progress report (no id).
    struct Message {
        var id: Int?
        var event: String
        var data: String
    }

    /// The node's name (its own gallery's name too).
    let name: String
    /// The space ID its drags carry.
    let space: String
    /// The replica part of its item IDs.
    let replica: String
    /// The token of `/?token=`.
    let token: String
    let condition = NSCondition()
    var galleryNames: [String] = []
    var galleries: [String: [Item]] = [:]
    var blobs: [String: (bytes: [UInt8], type: String)] = [:]
    /// Every message ever sent, in order (change batches and progress).
    var outbox: [Message] = []
    var lastBatchID = 0
    var counter = 0
    /// Requests received that change state: (method, path, JSON body), for assertions.
    var changeRequests: [(method: String, path: String, body: [String: Any])] = []
    /// Other fakes of the mesh, by name: where drops fetch bytes and delete sources of moves.
    var peers: [String: FakeNode] = [:]
    /// While true, transfers stop at half their bytes until `releaseTransfers()`.
    var holdTransfers = false
    /// Uploads begun: upload ID -> (placeholder ID, declared size, media type).
    var uploads: [String: (item: String, size: Int, mediaType: String)] = [:]

    /// A node named `name` of space `space`, holding its own empty gallery.
    init(name: String, space: String = "5ace5ace5ace5ace5ace5ace5ace5ace") {
        self.name = name
        self.space = space
        replica = String(format: "%016llx", UInt64.random(in: 1...UInt64.max))
        token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        galleryNames = [name]
        galleries[name] = []
    }

    // MARK: Reading

    /// The items of `gallery` (empty when unknown).
    func items(_ gallery: String) -> [Item] { condition.withLock { galleries[gallery] ?? [] } }

    /// The titles of `gallery`'s items in order.
    func titles(_ gallery: String) -> [String] { items(gallery).map { $0.title ?? "" } }

    /// The item with `id`, wherever it is.
    func item(_ id: String) -> Item? { condition.withLock { locate(id).map { galleries[$0.gallery]![$0.index] } } }

    /// The last change batch's ID.
    var lastEventId: Int { condition.withLock { lastBatchID } }

    /// Where `id` is. Call with the lock held.
    func locate(_ id: String) -> (gallery: String, index: Int)? {
        for name in galleryNames {
            if let index = galleries[name]?.firstIndex(where: { $0.id == id }) { return (name, index) }
        }
        return nil
    }

    /// A new item ID. Call with the lock held.
    func nextID() -> String {
        counter += 1
        return "\(counter)@\(replica)"
    }

    /// Runs `body` with the lock held, passing its refusal on.
    func locked<R>(_ body: () throws(Refusal) -> R) throws(Refusal) -> R {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    // MARK: Events

    /// Records one change batch of `events` (watch events; `item` and `index` added here, read after the
    /// whole batch, as http-api.md section 6 says). Call with the lock held.
    func emit(_ events: [(event: String, id: String?, gallery: String?, extra: [String: Any])]) {
        guard !events.isEmpty else { return }
        lastBatchID += 1
        // Positions after the whole batch, found once (a seed of 10,000 items is one batch).
        var positions: [String: (gallery: String, index: Int)] = [:]
        for name in galleryNames {
            for (index, item) in (galleries[name] ?? []).enumerated() { positions[item.id] = (name, index) }
        }
        let list: [[String: Any]] = events.map { entry in
            var json: [String: Any] = ["event": entry.event, "id": entry.id ?? NSNull(), "gallery": entry.gallery ?? NSNull(),
                                       "index": NSNull(), "title": NSNull(), "state": NSNull(), "field": NSNull()]
            if let id = entry.id, let place = positions[id] {
                let item = galleries[place.gallery]![place.index]
                json["gallery"] = place.gallery
                json["index"] = place.index
                json["title"] = item.title ?? NSNull()
                json["state"] = item.state
                if entry.event != "deleted" { json["item"] = item.json }
            }
            for (key, value) in entry.extra { json[key] = value }
            return json
        }
        outbox.append(Message(id: lastBatchID, event: "changes", data: Self.json(["id": lastBatchID, "events": list])))
        condition.broadcast()
    }

    /// Records a progress message for placeholder `id`. Call with the lock held.
    func emitProgress(_ id: String, done: Int, total: Int) {
        guard let place = locate(id) else { return }
        galleries[place.gallery]![place.index].progress = (done, total)
        let data = Self.json(["event": "progress", "id": id, "gallery": place.gallery, "index": place.index,
                              "title": (galleries[place.gallery]![place.index].title as Any?) ?? NSNull(),
                              "state": "placeholder", "done": done, "total": total])
        outbox.append(Message(id: nil, event: "progress", data: data))
        condition.broadcast()
    }

    /// Compact JSON text of `object`.
    static func json(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Lower-case hex SHA-256 of `bytes`.
    static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(bytes).map { String(format: "%02x", $0) }.joined()
    }
}
