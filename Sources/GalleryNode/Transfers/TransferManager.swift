import Foundation
import GalleryModel
import Synchronization

/// Fills this node's placeholders: fetches their bytes by hash from peers, in chunks, hashing as
/// they arrive, then commits each placeholder where it stands, or deletes it on failure, cancel or
/// timeout (docs/design.md section 4, rules 10-13).
///
/// Placeholders waiting for the same bytes share one `Download`. A download asks the peers that
/// added the dragged items first, then any other connected peer; one that goes away mid-transfer
/// is replaced by another, or waited for until the deadline, and the fetch resumes from the bytes
/// already held. Transfers survive restarts through the op log (the placeholders) and
/// `TransferJournal` (deadlines and moves).
///
/// It has no thread of its own: it runs on the node's executors and clock. The pass that asks
/// peers, retries and enforces deadlines is a lane of the node's `NodeWorkPool` (`passLane`),
/// queued when something changes and every 0.2 s on the node's timers while transfers are in
/// flight; each download stores its chunks on a lane of the same pool; times come from the
/// environment's clocks (`uptime`, `calendarNow`). The mesh simulator drives it on simulated time.
///
/// All mutable state is guarded by `lock`. A job on the node's inbox may
/// take `lock` (a drop's `begin`, the node's listings), so the manager calls the node (`perform`,
/// `read`, peers, progress), which waits for the inbox, only without holding `lock`: it could
/// otherwise wait for a job that waits for it. No job of the pool waits for durability (the
/// commits and deletes go through `SyncNode.perform(_:then:)`): the mirror's fsync, which the
/// group commit waits for, runs on the same pool.
// unchecked Sendable: its mutable state is under `lock`, which its 13 extension files take; not yet one Mutex
package final class TransferManager: @unchecked Sendable {
    /// How long a transfer may take when the drag gives no timeout.
    package static let defaultTimeout: Duration = .seconds(300)
    /// The chunk size, the bytes of one fetch and the stage's backlog (`TransferTuning`), read
    /// when a manager is made: set by `gallery-bench transfer --sweep` only.
    package static let tuning = Mutex(TransferTuning())
    /// The largest chunk sent to a peer, and the largest asked of one.
    static var chunkLength: Int { tuning.withLock { $0.chunkLength } }
    /// A fetch that has received nothing for this long while its connection carried fewer than
    /// `busyLinkBytes` is taken as lost (a dropped `fetch` or `chunk` frame): it is cancelled and
    /// asked again from the bytes held (nanoseconds).
    static let stallTimeout: UInt64 = 3_000_000_000
    /// More bytes than heartbeats bring: a link that carried this many since the fetch last made
    /// progress is busy (a chunk on its way), not lost.
    static let busyLinkBytes = 4_096
    /// The partial file is fsynced after this many new bytes, so that a restart resumes after them.
    static let checkpointBytes = 16 << 20
    /// Progress is reported to watchers at most this often per download (nanoseconds).
    static let reportInterval: UInt64 = 100_000_000
    /// The most finished transfers remembered for `status` and `drag --wait`.
    static let rememberedOutcomes = 10_000

    /// The node whose placeholders these are; set once, before `start`.
    weak var node: SyncNode?
    let blobs: any BlobSource
    let journal: any TransferRecords
    /// The chunk asked for: `chunkLength`, or less when this node accepts smaller frames.
    let chunkLength: Int
    /// The bytes one fetch asks for (a whole number of chunks): at most this many are on their
    /// way to this node per download, so an op sent meanwhile waits behind no more.
    let requestLength: Int
    /// The most bytes received but not yet stored per download before the next fetch waits.
    let backlogBytes: Int
    let lock = NSCondition()

    // Guarded by `lock`.
    var transfers: [OpID: Transfer] = [:]
    var downloads: [String: Download] = [:]
    /// The download each open fetch request serves.
    var requests: [UInt64: String] = [:]
    var nextRequest: UInt64 = 0
    var outcomes: [OpID: TransferOutcome] = [:]
    var outcomeOrder: [OpID] = []
    /// Peers that sent bytes of another hash, per blob, beyond the download that caught them.
    var mismatchedHolders = MismatchedHolders()
    /// Fetches a peer answered `not_found` since the node started (under `lock`): each is a round
    /// trip spent asking a peer that does not hold the bytes.
    var notFoundAnswers = 0

    /// Fetches answered `not_found` since the node started.
    package var fetchesNotFound: Int {
        lock.withLock { notFoundAnswers }
    }
    /// Why a placeholder about to be deleted by this node fails (else: deleted by someone).
    var failureReasons: [OpID: String] = [:]
    var waiters: [(ids: Set<OpID>, callback: @Sendable ([OpID: TransferOutcome]) -> Void)] = []
    var running = false
    /// Whether something changed since the pass last looked (another pass is queued then).
    var poked = false
    /// Whether a pass is queued on `passLane` or runs.
    var passQueued = false
    /// Whether a timer will request the next pass.
    var passTimerSet = false
    /// Whether the worker left downloads waiting because the bytes not yet stored reached
    /// `backlogBytes` (the stages wake it as they store).
    var fetchesHeldBack = false
    /// Bytes stored by downloads since freed memory was last handed back (`releaseFreedMemory`).
    var storedSinceRelease = 0
    /// Past this many bytes stored, the end of the last download hands freed memory back: the
    /// chunks' buffers of a burst are freed scattered among live allocations, where the allocator
    /// keeps them.
    static let releaseAfterBytes = 16 << 20
    /// Transfers began since the journal was last written: it must be written before long.
    var journalDirty = false
    /// Transfers ended since the journal was last written. Their records may stay a while (a
    /// restart resumes only placeholders still unresolved, so a record of one that ended is never
    /// read): the journal is rewritten for them when the last transfer ends, or with the next that
    /// begins, not at every end (a drag of n items wrote it n times, n²/2 records in all).
    var journalEnded = false
    /// Serializes writing the journal (taken before `lock`, never while holding it).
    let journalLock = NSLock()

    /// The node's workers: each download hashes and stores its chunks on a lane of its own
    /// (`Download.stage`), so a drag of a thousand items costs the pool's few threads.
    let workers: any NodeWorkPool
    /// Where the pass runs, and the commits' and deletes' endings.
    let passLane: any NodeExecutor
    /// The node's uptime clock (nanoseconds) and timers.
    let clock: any NodeClock
    /// The node's calendar (seconds since 1970): deadlines, kept across restarts.
    let wallClock: @Sendable () -> Double

    /// The blobs verified and waiting for the next durable batch (`storeVerified`), and whether a
    /// stage is storing a batch; guarded by `verifiedLock` (taken alone, never with `lock`).
    let verifiedLock = NSLock()
    var verifiedBlobs: [(hash: String, writer: any BlobSink)] = []
    var storingVerified = false
    /// Durable batches of blobs stored, and the blobs in them (`storeVerified`), since the start.
    let blobBatches = Atomic<Int>(0)
    let batchedBlobs = Atomic<Int>(0)

    /// Bytes done / total per placeholder in flight, readable without waiting on `lock` (which a
    /// chunk being written may hold).
    let progressLock = NSLock()
    var progressTable: [OpID: (done: Int, total: Int)] = [:]

    init(blobs: any BlobSource, maximumFrameSize: UInt32, workers: any NodeWorkPool, environment: NodeEnvironment) {
        self.blobs = blobs
        self.workers = workers
        self.passLane = workers.makeLane("transfers")
        self.clock = environment.clock
        self.wallClock = environment.wallClock
        let tuning = Self.tuning.withLock { $0 }
        self.chunkLength = max(1, min(tuning.chunkLength, Int(maximumFrameSize) - 64))
        self.requestLength = chunkLength * max(1, tuning.chunksPerFetch)
        self.backlogBytes = max(requestLength, tuning.backlogBytes)
        self.journal = blobs.transferRecords
    }

    /// Resumes the placeholders this node left unresolved, and starts the passes that ask peers,
    /// retry and enforce deadlines.
    func start() {
        lock.withLock { running = true }
        resumeUnresolved()
        lock.withLock { requestPass() }
    }

    /// Stops the passes; partial files are made durable and kept for a resume after a restart.
    func stop() {
        let (wasRunning, writers, stages) = lock.withLock { () -> (Bool, [any BlobSink], [any NodeExecutor]) in
            defer { running = false }
            for hash in Array(downloads.keys) { answerDemands(&downloads[hash]!, .failure(.stopped)) }
            return (running, downloads.values.compactMap(\.writer), downloads.values.compactMap(\.stage))
        }
        guard wasRunning else { return }
        // A pass under way ends (it sees `running` false before it acts).
        passLane.drain()
        // The chunks received are stored before the partial files are made durable.
        for stage in stages { stage.drain() }
        for writer in writers {
            try? writer.checkpoint()
            writer.suspend()
        }
    }

    /// Starts filling placeholders just inserted (or found unresolved at start). Callable from a job
    /// on the node's inbox (a drop's `perform`): the journal is written by `flushJournal()`, which
    /// the caller runs after the job, so that no input of the node waits for a file write.
    package func begin(_ new: [Transfer], preferred: [OpID: [ReplicaID]] = [:]) {
        guard !new.isEmpty else { return }
        lock.withLock {
            for transfer in new {
                transfers[transfer.placeholder] = transfer
                let ask = preferred[transfer.placeholder] ?? [transfer.source.replica]
                if downloads[transfer.hash] == nil {
                    downloads[transfer.hash] = Download(
                        hash: transfer.hash, size: transfer.size, placeholders: [], preferred: [])
                }
                downloads[transfer.hash]!.placeholders.append(transfer.placeholder)
                for replica in ask where !downloads[transfer.hash]!.preferred.contains(replica) {
                    downloads[transfer.hash]!.preferred.append(replica)
                }
            }
            journalDirty = true
            requestPass()
        }
        progressLock.withLock {
            for transfer in new { progressTable[transfer.placeholder] = (0, transfer.size) }
        }
    }

    /// Asks for a pass soon.
    func poke() {
        lock.withLock { requestPass() }
    }

    /// Writes the journal if transfers began or ended since it was last written. Call outside the
    /// node's inbox (not from `perform` or `read`) and without `lock`: it writes a file. A failure is logged: the placeholders are in the op log, so a restart
    /// still resumes them, as copies with a fresh deadline.
    package func flushJournal() {
        journalLock.withLock {
            let snapshot = lock.withLock { () -> [Transfer]? in
                guard journalDirty || (journalEnded && transfers.isEmpty) else { return nil }
                journalDirty = false
                journalEnded = false
                return Array(transfers.values)
            }
            guard let snapshot else { return }
            do {
                try journal.save(snapshot.sorted { $0.placeholder < $1.placeholder })
            } catch {
                node?.configuration.log("cannot record transfers in \(journal.location): \(error.localizedDescription)")
            }
        }
    }

    /// Bytes done / total of a placeholder in flight.
    package func progress(of placeholder: OpID) -> (done: Int, total: Int)? {
        progressLock.withLock { progressTable[placeholder] }
    }

    /// The node's uptime in nanoseconds (its clock: simulated in the mesh simulator).
    var uptime: UInt64 { clock.now }

    /// The node's calendar time: what deadlines are compared with.
    var calendarNow: Date { Date(timeIntervalSince1970: wallClock()) }
}
