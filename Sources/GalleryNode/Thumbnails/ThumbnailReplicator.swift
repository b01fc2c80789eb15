import Foundation
import GalleryCrypto
import GalleryImaging
import GalleryWire
import Synchronization

/// Eager replication of thumbnails (protocol.md, section 8.1): every picture an item of this node
/// names whose original this node lacks gets its thumbnails fetched from a connected peer, a few
/// at a time (`maximumInFlight`), so that the node's grid paints without the originals and with
/// the adding node offline. It also answers its peers' `thumbnail_fetch`.
///
/// A wanted picture is asked of one peer at a time (both sizes); a peer that answers "none", or
/// nothing within `answerTimeout`, or disconnects, is replaced by another; when every connected
/// peer answered "none" the picture is parked and asked again when a peer connects, or after
/// 15 s, 30 s, ... up to 10 minutes. A received thumbnail is stored only if it answers a request of this node to
/// that peer, and is a JPEG at most `maximumThumbnailBytes` long whose long edge is at most the
/// size asked (a member can send a wrong picture, never a large or undecodable one).
///
/// The work runs on `work`, a serial lane of the node's workers, never on the node's loop nor a
/// connection's event loop; its ticks are timers of the node (`SyncNode.scheduleTimer`).
package final class ThumbnailReplicator: Sendable {
    /// Pictures asked of peers at once (two requests each): a node joining a space of 10,000
    /// items opens 16 requests, not 20,000.
    package static let maximumInFlight = 8
    /// A peer that has not answered a request within this long is taken as not holding it (it
    /// may not know the frame, which is ignorable).
    static let answerTimeout: TimeInterval = 10
    /// Parked pictures are asked again after this long, then twice as long each time, up to
    /// `lastParkedRetry`, while no new peer connects.
    static let firstParkedRetry: TimeInterval = 15
    static let lastParkedRetry: TimeInterval = 600
    /// The largest thumbnail taken from a peer.
    package static let maximumThumbnailBytes = 2 << 20

    private struct Flight {
        let connection: Connection
        let sentAt: Date
        var sizes: Set<Int>
    }

    /// The pictures to ask for, those asked, parked and waited for, and the counts.
    private struct State {
        var queue: [String] = []
        var queued: Set<String> = []
        var flights: [String: Flight] = [:]
        /// The connections that answered "none" for a picture, until it is parked.
        var refusedBy: [String: Set<Int>] = [:]
        var parked: Set<String> = []
        /// Readers waiting for a picture's thumbnails (`fetchNow`): told true once both are
        /// stored, false once no connected peer has them.
        var waiters: [String: [@Sendable (Bool) -> Void]] = [:]
        var lastRetry = Date()
        var parkedRetry = ThumbnailReplicator.firstParkedRetry
        /// The connections whose sessions went live.
        var livePeers: Set<Int> = []
        /// When the next tick is scheduled, if one is.
        var tickDue: Date?
        var stopped = false
        /// Thumbnails received and stored, and their bytes, since start (for `status` and benchmarks).
        var receivedCount = 0
        var receivedBytes = 0

        /// Tells the readers waiting for `hash`; the answers run on another thread.
        mutating func answerWaiters(_ hash: String, _ got: Bool) {
            guard let answers = waiters.removeValue(forKey: hash) else { return }
            DispatchQueue.global().async { for answer in answers { answer(got) } }
        }

        /// Moves every parked picture back to the queue.
        mutating func unpark() {
            for hash in parked where queued.insert(hash).inserted { queue.append(hash) }
            parked = []
            refusedBy = [:]
            lastRetry = Date()
        }

        /// The peer on `connection` does not hold `hash`'s thumbnails: another is asked.
        mutating func refuse(_ hash: String, by connection: Int) {
            flights[hash] = nil
            refusedBy[hash, default: []].insert(connection)
            if queued.insert(hash).inserted { queue.insert(hash, at: 0) }
        }
    }

    /// The node, set by the node's `init`.
    var node: SyncNode? {
        get { nodeSlot.object }
        set { nodeSlot.object = newValue }
    }
    private let nodeSlot = WeakSlot<SyncNode>()
    let maker: ThumbnailMaker
    private let work: any NodeExecutor
    private let state = Mutex(State())

    /// A replicator whose work runs on `work` (a serial lane).
    init(maker: ThumbnailMaker, work: any NodeExecutor) {
        self.maker = maker
        self.work = work
    }

    /// Thumbnails received from peers and stored, and their bytes.
    package var received: (count: Int, bytes: Int) {
        state.withLock { state in (state.receivedCount, state.receivedBytes) }
    }

    /// Pictures waiting for thumbnails from peers: queued or asked, and parked (no connected peer had them).
    package var waiting: (asking: Int, parked: Int) {
        state.withLock { state in (state.queued.count + state.flights.count, state.parked.count) }
    }

    /// Wants the thumbnails of these pictures, those this node lacks.
    func want(_ hashes: [String]) {
        guard !hashes.isEmpty else { return }
        state.withLock { state in
            for hash in hashes where state.flights[hash] == nil && !state.parked.contains(hash) && state.queued.insert(hash).inserted {
                state.queue.append(hash)
            }
        }
        work.async { self.pump() }
    }

    /// A reader waits for the thumbnails of `hash`: asked of the peers first, ahead of the rest
    /// (also when parked: a peer may hold them by now); `answer` is called once, on another
    /// thread: true once both are stored, false when no connected peer has them.
    func fetchNow(_ hash: String, answer: @escaping @Sendable (Bool) -> Void) {
        guard let node, !node.fetchPeers().isEmpty else { return answer(false) }
        let refused = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.waiters[hash, default: []].append(answer)
            guard state.flights[hash] == nil else { return false }
            state.parked.remove(hash)
            state.refusedBy[hash] = nil
            if state.queued.contains(hash) { state.queue.removeAll { $0 == hash } }
            state.queued.insert(hash)
            state.queue.insert(hash, at: 0)
            return false
        }
        if refused { return answer(false) }
        work.async { self.pump() }
    }

    /// A peer's session went live: when it is a connection not seen live before, parked pictures
    /// are asked again (a `caught_up` of the periodic version exchange is not a new peer).
    func peerJoined(_ connection: Int) {
        let new = state.withLock { state -> Bool in
            guard state.livePeers.insert(connection).inserted else { return false }
            state.unpark()
            state.parkedRetry = Self.firstParkedRetry
            return true
        }
        if new { work.async { self.pump() } }
    }

    /// Stops asking; answers no more.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.queue = []
            state.queued = []
            state.flights = [:]
            for hash in Array(state.waiters.keys) { state.answerWaiters(hash, false) }
        }
    }

    /// Sends requests until `maximumInFlight` pictures are asked or none is left to ask. On `work`.
    private func pump() {
        guard let node, let blobs = node.configuration.blobs else { return }
        let peers = node.fetchPeers()
        var sends: [(Connection, ThumbnailName)] = []
        state.withLock { state in
            guard !state.stopped else { return }
            guard !peers.isEmpty else {
                for hash in Array(state.waiters.keys) { state.answerWaiters(hash, false) }
                return
            }
            var index = 0
            while state.flights.count < Self.maximumInFlight, index < state.queue.count {
                let hash = state.queue[index]
                index += 1
                if maker.isComplete(hash) {
                    state.queued.remove(hash)
                    state.answerWaiters(hash, true)
                    continue
                }
                if blobs.contains(hash) || maker.derived.failure(of: hash) != nil {
                    state.queued.remove(hash)
                    state.answerWaiters(hash, false)
                    continue
                }
                let refused = state.refusedBy[hash] ?? []
                let load = Dictionary(grouping: state.flights.values, by: { $0.connection.id }).mapValues(\.count)
                guard let peer = peers.filter({ !refused.contains($0.connection.id) })
                    .min(by: { load[$0.connection.id, default: 0] < load[$1.connection.id, default: 0] }) else {
                    state.queued.remove(hash)
                    state.parked.insert(hash)
                    state.answerWaiters(hash, false)
                    continue
                }
                state.queued.remove(hash)
                let missing = ThumbnailSize.allCases.map(\.rawValue).filter { !maker.derived.hasThumbnail(of: hash, size: $0) }
                state.flights[hash] = Flight(connection: peer.connection, sentAt: Date(), sizes: Set(missing))
                let bytes = Self.bytes(ofHex: hash)
                for size in missing { sends.append((peer.connection, ThumbnailName(hash: bytes, size: size))) }
            }
            state.queue.removeFirst(index)
        }
        for (connection, name) in sends { _ = connection.send(.thumbnailFetch(name)) }
        scheduleTick()
    }

    /// Checks timeouts each second while any request is out, and parked pictures when their
    /// retry is due. A tick due sooner than the one scheduled is scheduled too; a tick that finds
    /// a sooner one already ran, or a later one due, does nothing.
    private func scheduleTick() {
        let delay = state.withLock { state -> TimeInterval? in
            guard !state.stopped, !state.flights.isEmpty || !state.parked.isEmpty else { return nil }
            let delay = state.flights.isEmpty ? max(1, state.parkedRetry - Date().timeIntervalSince(state.lastRetry) + 0.01) : 1
            let due = Date().addingTimeInterval(delay)
            if let scheduled = state.tickDue, scheduled <= due { return nil }
            state.tickDue = due
            return delay
        }
        guard let delay, let node else { return }
        node.scheduleTimer(after: UInt64(delay * 1e9)) { [weak self] in
            guard let self else { return }
            work.async { self.tick() }
        }
    }

    /// A tick: requests past `answerTimeout` are asked of another peer, parked pictures go back
    /// to the queue when their retry is due. On `work`.
    private func tick() {
        let due = state.withLock { state -> Bool in
            guard let scheduled = state.tickDue, scheduled <= Date().addingTimeInterval(0.005) else { return false }
            state.tickDue = nil
            let now = Date()
            for (hash, flight) in state.flights where now.timeIntervalSince(flight.sentAt) > Self.answerTimeout {
                state.refuse(hash, by: flight.connection.id)
            }
            if !state.parked.isEmpty, now.timeIntervalSince(state.lastRetry) > state.parkedRetry {
                state.unpark()
                state.parkedRetry = min(state.parkedRetry * 2, Self.lastParkedRetry)
            }
            return true
        }
        if due { pump() }
    }

    /// A connection closed: its requests are asked of another peer.
    func connectionClosed(_ connection: Connection) {
        state.withLock { state in
            state.livePeers.remove(connection.id)
            for (hash, flight) in state.flights where flight.connection === connection {
                state.flights[hash] = nil
                if state.queued.insert(hash).inserted { state.queue.insert(hash, at: 0) }
            }
        }
        work.async { self.pump() }
    }

    /// A peer's `thumbnail`: stored when it answers a request of this node to that peer and passes
    /// the checks; an empty one moves the picture on to the next peer.
    func received(_ name: ThumbnailName, data: [UInt8], from connection: Connection) {
        work.async { [self] in
            let hash = SHA256.hex(name.hash)
            let expected = state.withLock { state in state.flights[hash].map { $0.connection === connection && $0.sizes.contains(name.size) } ?? false }
            guard expected else { return }
            guard !data.isEmpty else {
                state.withLock { state in state.refuse(hash, by: connection.id) }
                return pump()
            }
            var stored = false
            if data.count <= Self.maximumThumbnailBytes, Self.isThumbnail(data, size: name.size) {
                do {
                    try maker.derived.storeThumbnail(data, of: hash, size: name.size)
                    stored = true
                } catch {
                    node?.configuration.log("cannot store a thumbnail of \(hash.prefix(12)): \(error.localizedDescription)")
                }
            } else {
                node?.configuration.log("\(connection.peer?.label ?? "a peer") sent a thumbnail of \(hash.prefix(12)) that is not a JPEG of at most \(name.size) px")
            }
            state.withLock { state in
                guard var flight = state.flights[hash], flight.connection === connection else { return }
                if !stored {
                    state.refuse(hash, by: connection.id)
                    return
                }
                state.receivedCount += 1
                state.receivedBytes += data.count
                flight.sizes.remove(name.size)
                state.flights[hash] = flight.sizes.isEmpty ? nil : flight
                if flight.sizes.isEmpty {
                    state.refusedBy[hash] = nil
                    state.answerWaiters(hash, true)
                }
            }
            pump()
        }
    }

    /// Whether `data` is a JPEG whose frame's long edge is at most `size` (read from its header,
    /// no pixel decoded).
    static func isThumbnail(_ data: [UInt8], size: Int) -> Bool {
        guard let frame = try? JPEGDecoder.frameSize(of: Data(data)) else { return false }
        return frame.width > 0 && frame.height > 0 && max(frame.width, frame.height) <= size
    }

    /// Answers a peer's `thumbnail_fetch`: the stored thumbnail; made first from the original if
    /// this node holds it and has not made it yet; else none (empty).
    func serve(_ name: ThumbnailName, on connection: Connection) {
        work.async { [self] in
            let hash = SHA256.hex(name.hash)
            let answer: @Sendable ([UInt8]) -> Void = { data in _ = connection.send(.thumbnail(name, data: data)) }
            if let bytes = maker.derived.thumbnail(of: hash, size: name.size) { return answer(bytes) }
            guard ThumbnailSize(rawValue: name.size) != nil, let blobs = node?.configuration.blobs, blobs.contains(hash),
                  maker.derived.failure(of: hash) == nil else { return answer([]) }
            maker.make(hash, urgent: true) { [maker] _ in
                answer(maker.derived.thumbnail(of: hash, size: name.size) ?? [])
            }
        }
    }

    /// The 32 bytes of a 64-digit hex hash.
    static func bytes(ofHex hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var high: UInt8?
        for unit in hex.utf8 {
            let value: UInt8 = switch unit {
            case 0x30...0x39: unit - 0x30
            case 0x61...0x66: unit - 0x61 + 10
            case 0x41...0x46: unit - 0x41 + 10
            default: 0
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}
