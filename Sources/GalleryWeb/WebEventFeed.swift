import Foundation
import GalleryControl
import GalleryHTTP
import GalleryModel
import GalleryNode
import GalleryWire

/// The live event stream of http-api.md section 6, fed by the node's `NodeEvents`.
///
/// **Event IDs are durable log positions.** A `changes` message's ID is the number of the node's
/// ops that are durable once its batch is in (`SyncNode.readDurable`): the node applies and
/// stores ops in one order, which a restart restores, so ID N names the same point of the node's
/// history before and after a restart. A client that resumes after N (`Last-Event-ID` from the
/// browser's reconnect, or the snapshot's `?after=N`) gets the messages after N still held here
/// (the last 10,000), or, after a restart or when N is older, one `changes` message with the ops at
/// log positions N up to the present, read from the replica's op log: exactly the missed changes,
/// none twice. N ahead of the node (a restored node), or more than 10,000 ops behind, gets `reset`.
///
/// A message is built on the node's loop from the replica as it is then, covering every op durable
/// at that moment (several published batches may become one message); `index` is read after the
/// whole message. `progress` messages carry no ID and are not replayed.
///
/// Each stream is written by its connection's thread, which waits on `condition` for messages
/// past its cursor: the feed never waits for a client, and a client that falls behind the ring
/// gets `reset`.
///
/// `@unchecked Sendable`: mutable state is guarded by `condition`.
final class WebEventFeed: @unchecked Sendable {
    /// One message of the ring.
    struct Message {
        /// Its place in the ring's order (every message, progress included).
        var serial: Int
        /// For `changes`: the durable count before it (the ID a client resuming here sent).
        var start: Int?
        /// The encoded event.
        var bytes: [UInt8]
    }

    /// Messages kept for resuming clients.
    static let kept = 10_000
    /// The most ops a catch-up from the op log covers before `reset` is sent instead.
    static let maximumCatchUp = 10_000
    /// Seconds between keep-alive comments.
    static let keepAliveSeconds = 15.0

    private let node: SyncNode
    private let reasons: @Sendable (OpID) -> String?
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var messages: [Message] = []
    private var nextSerial = 0
    private var covered: Int
    private var stopped = false
    private var subscription: NodeEvents.Subscription?

    /// Starts following `node`; `reasons` names why a placeholder was deleted, when known.
    init(node: SyncNode, reasons: @escaping @Sendable (OpID) -> String?) {
        self.node = node
        self.reasons = reasons
        self.covered = node.readDurable { $1 }
        subscription = node.events.subscribe { [weak self] event in
            guard let self else { return }
            switch event {
            case .applied, .resyncNeeded:
                _ = advance()
            case .transferProgress(let progress):
                let events = node.read { WatchEvents.events(of: progress, in: $0, gallery: nil) }
                publishProgress(events)
            case .peerChanged:
                break
            }
        }
    }

    /// Stops: every stream ends, no event is taken.
    func stop() {
        if let subscription { node.events.unsubscribe(subscription) }
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    /// Brings the feed up to the node's durable ops (a message for any not covered yet) and
    /// returns the last ID: what a change's answer reports, once its events are in the stream.
    @discardableResult
    func advance() -> Int {
        condition.withLock {
            node.readDurable { replica, durable in appendChanges(upTo: durable, in: replica) }
            return covered
        }
    }

    /// Reads a snapshot with the ID of the last change it includes (every change after that ID
    /// comes in the stream): `body` runs on the node's loop.
    func snapshot<T>(_ body: (Replica) throws -> T) throws -> (T, Int) {
        try condition.withLock {
            try node.readDurable { replica, durable -> Result<(T, Int), any Error> in
                appendChanges(upTo: durable, in: replica)
                return Result { (try body(replica), covered) }
            }.get()
        }
    }

    /// Publishes `progress` events (no ID).
    func publishProgress(_ events: [WatchEvent]) {
        guard !events.isEmpty else { return }
        condition.withLock {
            for event in events {
                let data = WebResponse.encode(Self.json(of: event, progress: true))
                append(start: nil, ServerSentEvent(event: "progress", data: String(decoding: data, as: UTF8.self)).encoded())
            }
            condition.broadcast()
        }
    }

    /// Writes the stream to `output` until the client goes, the write fails or the feed stops:
    /// first what follows `after` (see the type's summary), then every message as it comes, and
    /// a comment every 15 s.
    func stream(to output: OutputStream, after: Int?) {
        guard output.writeAll(Array("retry: 500\n\n".utf8)) else { return }
        var (cursor, first) = start(after: after)
        if let first, !output.writeAll(first) { return }
        while true {
            let pending: [UInt8]? = condition.withLock {
                let deadline = Date().addingTimeInterval(Self.keepAliveSeconds)
                while !stopped && cursor >= nextSerial {
                    if !condition.wait(until: deadline) { break }
                }
                if stopped { return nil }
                var bytes: [UInt8] = []
                let oldest = messages.first?.serial ?? nextSerial
                if cursor < oldest {
                    bytes = resetMessage()
                } else {
                    for message in messages[(cursor - oldest)...] { bytes += message.bytes }
                }
                cursor = nextSerial
                return bytes
            }
            guard let pending else { return }
            guard output.writeAll(pending.isEmpty ? ServerSentEvent.comment("keep-alive") : pending) else { return }
        }
    }

    /// The cursor to follow from and the first bytes to send for a client resuming after `after`.
    private func start(after: Int?) -> (Int, [UInt8]?) {
        condition.withLock {
            node.readDurable { replica, durable -> (Int, [UInt8]?) in
                appendChanges(upTo: durable, in: replica)
                guard let after, after != covered else { return (nextSerial, nil) }
                if after > covered || covered - after > Self.maximumCatchUp || after < 0 { return (nextSerial, resetMessage()) }
                if let held = messages.first(where: { $0.start == after }) { return (held.serial, nil) }
                // Not held (the node restarted, or it is older): the ops since, from the op log.
                let ops = SyncNode.ops(from: after, to: covered, in: replica)
                return (nextSerial, changesMessage(ops, id: covered, in: replica))
            }
        }
    }

    /// Appends a `changes` message for the ops from `covered` to `durable`. Caller holds `condition`.
    private func appendChanges(upTo durable: Int, in replica: Replica) {
        guard durable > covered else { return }
        let ops = SyncNode.ops(from: covered, to: durable, in: replica)
        let start = covered
        covered = durable
        append(start: start, changesMessage(ops, id: durable, in: replica))
        condition.broadcast()
    }

    private func append(start: Int?, _ bytes: [UInt8]) {
        messages.append(Message(serial: nextSerial, start: start, bytes: bytes))
        nextSerial += 1
        if messages.count > Self.kept + Self.kept / 4 { messages.removeFirst(messages.count - Self.kept) }
    }

    private func resetMessage() -> [UInt8] {
        ServerSentEvent(event: "reset", data: String(decoding: WebResponse.encode(["lastEventId": covered]), as: UTF8.self)).encoded()
    }

    /// One `changes` message: the `watch --json` events of `ops`, with the item (every event but
    /// `deleted` and `galleryCreated`) and, on the deletion of a placeholder, the reason when known.
    private func changesMessage(_ ops: [Op], id: Int, in replica: Replica) -> [UInt8] {
        let events = WatchEvents.events(of: ops, in: replica, gallery: nil).map { event -> [String: Any] in
            var json = Self.json(of: event, progress: false)
            let itemID = event.id.flatMap(OpID.init)
            switch event.event {
            case .deleted:
                if let itemID, replica.item(itemID)?.state == .placeholder, let reason = reasons(itemID) { json["reason"] = reason }
            case .galleryCreated:
                break
            default:
                if let itemID, let item = replica.item(itemID) {
                    json["item"] = WebItems.json(ControlCommands.listing(item, transfers: node.transfers))
                }
            }
            return json
        }
        let data = WebResponse.encode(["id": id, "events": events])
        return ServerSentEvent(id: String(id), event: "changes", data: String(decoding: data, as: UTF8.self)).encoded()
    }

    /// A `watch --json` event as a dictionary, every key present (null when unset).
    static func json(of event: WatchEvent, progress: Bool) -> [String: Any] {
        var json: [String: Any] = [
            "event": event.event.rawValue, "id": event.id ?? NSNull(), "gallery": event.gallery ?? NSNull(),
            "index": event.index ?? NSNull(), "title": event.title ?? NSNull(), "state": event.state ?? NSNull(),
        ]
        if progress {
            json["done"] = event.done ?? NSNull()
            json["total"] = event.total ?? NSNull()
        } else {
            json["field"] = event.field ?? NSNull()
        }
        return json
    }
}
