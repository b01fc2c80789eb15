import Foundation
import GalleryControl
import GalleryHTTP
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization

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
/// Streams are written by their connections on the event loops (`WebConnection`): a stream
/// subscribes with a wake-up, and on each message pulls the bytes past its cursor
/// (`messages(after:)`), which takes `ring` only, never a lock held while the node is asked. The
/// feed never waits for a client, and a client that falls behind the ring gets `reset`.
final class WebEventFeed: Sendable {
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
    /// Nanoseconds between keep-alive comments.
    static let keepAliveNanoseconds: UInt64 = 15_000_000_000

    private let node: SyncNode
    private let reasons: @Sendable (OpID) -> String?
    /// Serializes the node reads that append.
    private let advancing = NSLock()
    /// The messages and the streams.
    private let ring: Mutex<Ring>
    /// Set once in `init`.
    private let subscription = Mutex<NodeEvents.Subscription?>(nil)

    /// The messages kept and the open streams.
    struct Ring {
        var messages: [Message] = []
        var nextSerial = 0
        var covered: Int
        var stopped = false
        var streams: [Int: @Sendable () -> Void] = [:]
        var nextStream = 0
        /// Whether a message was appended since the streams were last woken.
        var unwoken = false

        /// Appends a message.
        mutating func append(start: Int?, _ bytes: [UInt8]) {
            messages.append(Message(serial: nextSerial, start: start, bytes: bytes))
            nextSerial += 1
            unwoken = true
            if messages.count > WebEventFeed.kept + WebEventFeed.kept / 4 { messages.removeFirst(messages.count - WebEventFeed.kept) }
        }

        /// A `reset` message to the last covered ID.
        func resetMessage() -> [UInt8] {
            ServerSentEvent(event: "reset", data: String(decoding: (["lastEventId": WebJSON(covered)] as WebJSON).bytes, as: UTF8.self)).encoded()
        }
    }

    /// Starts following `node`; `reasons` names why a placeholder was deleted, when known.
    init(node: SyncNode, reasons: @escaping @Sendable (OpID) -> String?) {
        self.node = node
        self.reasons = reasons
        ring = Mutex(Ring(covered: node.readDurable { $1 }))
        let subscription = node.events.subscribe { [weak self] event in
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
        self.subscription.withLock { $0 = subscription }
    }

    /// Stops: every stream ends, no event is taken.
    func stop() {
        if let subscription = subscription.withLock({ $0 }) { node.events.unsubscribe(subscription) }
        let wakes = ring.withLock { ring in
            ring.stopped = true
            return Array(ring.streams.values)
        }
        wakes.forEach { $0() }
    }

    /// Brings the feed up to the node's durable ops (a message for any not covered yet) and
    /// returns the last ID: what a change's answer reports, once its events are in the stream.
    @discardableResult
    func advance() -> Int {
        let last = advancing.withLock {
            node.readDurable { replica, durable in appendChanges(upTo: durable, in: replica) }
            return ring.withLock { $0.covered }
        }
        wakeStreams()
        return last
    }

    /// Reads a snapshot with the ID of the last change it includes (every change after that ID
    /// comes in the stream): `body` runs on the node's loop.
    func snapshot<T>(_ body: (Replica) throws -> T) throws -> (T, Int) {
        defer { wakeStreams() }
        return try advancing.withLock {
            try node.readDurable { replica, durable -> Result<(T, Int), any Error> in
                appendChanges(upTo: durable, in: replica)
                let last = ring.withLock { $0.covered }
                return Result { (try body(replica), last) }
            }.get()
        }
    }

    /// Publishes `progress` events (no ID).
    func publishProgress(_ events: [WatchEvent]) {
        guard !events.isEmpty else { return }
        let encoded = events.map { event in
            let data = Self.json(of: event, progress: true).bytes
            return ServerSentEvent(event: "progress", data: String(decoding: data, as: UTF8.self)).encoded()
        }
        ring.withLock { ring in
            for bytes in encoded { ring.append(start: nil, bytes) }
        }
        wakeStreams()
    }

    /// Opens a stream for a client resuming after `after` (see the type's summary): the bytes to
    /// send first (`retry`, then a `reset` or the missed changes), the cursor to follow from, and
    /// the stream's ID. `wake` is called, on any thread, whenever messages may wait past a cursor
    /// and when the feed stops. Asks the node: not on an event loop.
    func open(after: Int?, wake: @escaping @Sendable () -> Void) -> (first: [UInt8], cursor: Int, stream: Int) {
        let (cursor, first) = advancing.withLock {
            node.readDurable { replica, durable -> (Int, [UInt8]?) in
                appendChanges(upTo: durable, in: replica)
                let (next, last, held) = ring.withLock { ring in
                    (ring.nextSerial, ring.covered, after.flatMap { after in ring.messages.first(where: { $0.start == after })?.serial })
                }
                guard let after, after != last else { return (next, nil) }
                if after > last || last - after > Self.maximumCatchUp || after < 0 { return (next, ring.withLock { $0.resetMessage() }) }
                if let held { return (held, nil) }
                // Not held (the node restarted, or it is older): the ops since, from the op log.
                let ops = SyncNode.ops(from: after, to: last, in: replica)
                return (next, changesMessage(ops, id: last, in: replica))
            }
        }
        let stream = ring.withLock { ring -> Int in
            ring.nextStream += 1
            ring.streams[ring.nextStream] = wake
            return ring.nextStream
        }
        // The new stream pulls from its cursor itself; the others hear of what `open` appended.
        wakeStreams()
        return (Array("retry: 500\n\n".utf8) + (first ?? []), cursor, stream)
    }

    /// Ends stream `stream`: its wake-up is dropped.
    func close(stream: Int) {
        _ = ring.withLock { $0.streams.removeValue(forKey: stream) }
    }

    /// The bytes of the messages past `cursor` and the cursor after them (a `reset` when the
    /// cursor fell out of the ring); nil once the feed stopped. Quick: any thread, loops included.
    func messages(after cursor: Int) -> (bytes: [UInt8], cursor: Int)? {
        ring.withLock { ring in
            if ring.stopped { return nil }
            guard cursor < ring.nextSerial else { return ([], cursor) }
            let oldest = ring.messages.first?.serial ?? ring.nextSerial
            if cursor < oldest { return (ring.resetMessage(), ring.nextSerial) }
            var bytes: [UInt8] = []
            for message in ring.messages[(cursor - oldest)...] { bytes += message.bytes }
            return (bytes, ring.nextSerial)
        }
    }

    /// Tells every open stream that messages wait, when any was appended since the last time.
    private func wakeStreams() {
        let wakes = ring.withLock { ring -> [@Sendable () -> Void] in
            guard ring.unwoken else { return [] }
            ring.unwoken = false
            return Array(ring.streams.values)
        }
        wakes.forEach { $0() }
    }

    /// Appends a `changes` message for the ops from `covered` to `durable`. Caller holds `advancing`.
    private func appendChanges(upTo durable: Int, in replica: Replica) {
        let start = ring.withLock { $0.covered }
        guard durable > start else { return }
        let ops = SyncNode.ops(from: start, to: durable, in: replica)
        let message = changesMessage(ops, id: durable, in: replica)
        ring.withLock { ring in
            ring.covered = durable
            ring.append(start: start, message)
        }
    }

    /// One `changes` message: the `watch --json` events of `ops`, with the item (every event but
    /// `deleted` and `galleryCreated`) and, on the deletion of a placeholder, the reason when known.
    private func changesMessage(_ ops: [Op], id: Int, in replica: Replica) -> [UInt8] {
        let events = WatchEvents.events(of: ops, in: replica, gallery: nil).map { event -> WebJSON in
            var json = Self.json(of: event, progress: false)
            let itemID = event.id.flatMap(OpID.init)
            switch event.event {
            case .deleted:
                if let itemID, replica.item(itemID)?.state == .placeholder, let reason = reasons(itemID) { json["reason"] = .string(reason) }
            case .galleryCreated:
                break
            default:
                if let itemID, let item = replica.item(itemID) {
                    json["item"] = WebItems.json(ControlCommands.listing(item, transfers: node.transfers))
                }
            }
            return json
        }
        let data = (["id": WebJSON(id), "events": .array(events)] as WebJSON).bytes
        return ServerSentEvent(id: String(id), event: "changes", data: String(decoding: data, as: UTF8.self)).encoded()
    }

    /// A `watch --json` event as a dictionary, every key present (null when unset).
    static func json(of event: WatchEvent, progress: Bool) -> WebJSON {
        var json: WebJSON = [
            "event": .string(event.event.rawValue), "id": WebJSON(event.id), "gallery": WebJSON(event.gallery),
            "index": WebJSON(event.index), "title": WebJSON(event.title), "state": WebJSON(event.state),
        ]
        if progress {
            json["done"] = WebJSON(event.done)
            json["total"] = WebJSON(event.total)
        } else {
            json["field"] = WebJSON(event.field)
        }
        return json
    }
}
