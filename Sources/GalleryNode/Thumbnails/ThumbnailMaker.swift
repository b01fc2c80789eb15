import Foundation
import GalleryImaging
import Synchronization

/// Makes the thumbnails of the originals this node holds (`ThumbnailSize.allCases` from one
/// decode), off the node's loop, on a bounded pool of threads, and stores them as derived blobs.
///
/// Jobs are named by the original's hash: every caller asking for one hash while it is queued or
/// being made shares that one job. A reader waiting (a page) is queued ahead of the thumbnails made
/// on arrival. An original that yields none (not an image, hostile, too large) gets its reason
/// recorded in the derived store, and is not tried again.
///
/// **Memory bound.** A job holds the original once (at most `maximumOriginalBytes`, 64 MiB, read
/// 1 MiB at a time into one buffer; a larger file is refused unread) and the decoder's working
/// memory, bounded by `limits` (`ImageLimits.standard`: 256 MiB, the decoded raster of at most 64
/// megapixels after scaling included, checked against the headers before any buffer is
/// allocated), then the resampled rasters (a few MiB): under 330 MiB a job. At most `width` jobs run
/// at once (the cores, at most 4, and one fewer than the node's workers, so that a chunk to store
/// or the mirror's fsync always finds one free). A hostile picture costs an error and a recorded
/// reason, never more than that bound.
///
/// The jobs run on the node's workers (`NodeWorkPool`), one picture per job: a thread of the pool
/// goes back to the other lanes between two pictures.
///
package final class ThumbnailMaker: Sendable {
    /// The largest original a thumbnail is made of.
    package static let maximumOriginalBytes = 64 << 20
    /// The bytes of the original read at a time.
    static let readPiece = 1 << 20
    /// What a job is told: both thumbnails are stored, or why not.
    package typealias Answer = @Sendable (Result<Void, ThumbnailFailure>) -> Void

    let originals: any BlobSource
    package let derived: any DerivedBlobSource
    /// The most jobs running at once.
    package let width: Int
    /// The decoders' bounds.
    let limits: ImageLimits
    let log: NodeLog
    /// Where the jobs run.
    let workers: any NodeWorkPool

    /// The jobs, their queues and the counts.
    private struct Queues {
        /// The answers waiting for each queued or running job.
        var jobs: [String: [Answer]] = [:]
        /// Jobs a reader waits for, then jobs made on arrival; each read from `…Head`.
        var urgent: [String] = []
        var urgentHead = 0
        var background: [String] = []
        var backgroundHead = 0
        var running = 0
        var stopped = false
        /// Counts since start, for `status`: originals made into thumbnails, and refused.
        var madeCount = 0
        var failedCount = 0
        /// The jobs a thread took (they stay in `jobs` until answered).
        var taken: Set<String> = []
    }

    private let queues = Mutex(Queues())

    /// A maker on `workers`; without them, on a pool of its own of `width` threads.
    package init(originals: any BlobSource, derived: any DerivedBlobSource, width: Int? = nil, workers: (any NodeWorkPool)? = nil,
                 limits: ImageLimits = .standard, log: NodeLog) {
        self.originals = originals
        self.derived = derived
        let cores = min(4, ProcessInfo.processInfo.activeProcessorCount)
        let pool = workers ?? WorkPool(name: "thumbnails", width: width ?? cores)
        self.workers = pool
        self.width = max(1, min(width ?? cores, workers == nil ? pool.width : pool.width - 1))
        self.limits = limits
        self.log = log
    }

    /// Whether every size of `hash` is stored.
    package func isComplete(_ hash: String) -> Bool {
        ThumbnailSize.allCases.allSatisfy { derived.hasThumbnail(of: hash, size: $0.rawValue) }
    }

    /// Jobs queued or running.
    package var pending: Int {
        queues.withLock { $0.jobs.count }
    }

    /// Originals made into thumbnails, and refused, since the node started.
    package var counts: (made: Int, failed: Int) {
        queues.withLock { ($0.madeCount, $0.failedCount) }
    }

    /// Makes the thumbnails of the held original `hash` unless they are stored, then calls
    /// `answer` once (on another thread, or at once when nothing is to be done). `urgent`: a
    /// reader waits, so the job goes ahead of those made on arrival.
    package func make(_ hash: String, urgent isUrgent: Bool = false, answer: Answer? = nil) {
        if isComplete(hash) {
            answer?(.success(()))
            return
        }
        if let reason = derived.failure(of: hash) {
            answer?(.failure(.undecodable(reason)))
            return
        }
        let start = queues.withLock { queues -> Bool? in
            guard !queues.stopped else { return nil }
            if queues.jobs[hash] != nil {
                if let answer { queues.jobs[hash]!.append(answer) }
                // A reader now waits for a job made on arrival: it goes ahead too.
                if isUrgent { queues.urgent.append(hash) }
                return false
            }
            queues.jobs[hash] = answer.map { [$0] } ?? []
            if isUrgent { queues.urgent.append(hash) } else { queues.background.append(hash) }
            guard queues.running < width else { return false }
            queues.running += 1
            return true
        }
        switch start {
        case nil: answer?(.failure(.stopped))
        case true?: workers.async { self.work() }
        case false?: break
        }
    }

    /// An original is now held (a download finished): its thumbnails are made, unless they are.
    func originalStored(_ hash: String) {
        guard !isComplete(hash) else { return }
        make(hash)
    }

    /// Refuses every queued job and every later one.
    package func stop() {
        let answers = queues.withLock { queues -> [Answer] in
            queues.stopped = true
            let waiting = queues.jobs.values.flatMap { $0 }
            queues.jobs = [:]
            queues.urgent = []
            queues.background = []
            queues.urgentHead = 0
            queues.backgroundHead = 0
            return waiting
        }
        for answer in answers { answer(.failure(.stopped)) }
    }

    /// One of the `width` running jobs: makes the next queued picture, then queues itself again
    /// for the one after (so the worker serves other lanes in between), until none is queued.
    private func work() {
        guard let hash = next() else { return }
        let result = makeNow(hash)
        let answers = queues.withLock { queues -> [Answer] in
            switch result {
            case .success: queues.madeCount += 1
            case .failure(.undecodable): queues.failedCount += 1
            default: break
            }
            return queues.jobs.removeValue(forKey: hash) ?? []
        }
        for answer in answers { answer(result) }
        workers.async { self.work() }
    }

    /// The next queued job, urgent first; nil (and one thread fewer running) when none is left.
    private func next() -> String? {
        queues.withLock { queues in
            while true {
                if queues.urgentHead < queues.urgent.count {
                    let hash = queues.urgent[queues.urgentHead]
                    queues.urgentHead += 1
                    if queues.urgentHead == queues.urgent.count { queues.urgent = []; queues.urgentHead = 0 }
                    // A job already taken from the other queue is not made twice.
                    if queues.jobs[hash] != nil, !queues.taken.contains(hash) { queues.taken.insert(hash); return hash }
                } else if queues.backgroundHead < queues.background.count {
                    let hash = queues.background[queues.backgroundHead]
                    queues.backgroundHead += 1
                    if queues.backgroundHead == queues.background.count { queues.background = []; queues.backgroundHead = 0 }
                    if queues.jobs[hash] != nil, !queues.taken.contains(hash) { queues.taken.insert(hash); return hash }
                } else {
                    queues.running -= 1
                    return nil
                }
            }
        }
    }

    /// Reads the original, makes both sizes from one decode and stores them; records why not
    /// when the picture cannot be decoded.
    private func makeNow(_ hash: String) -> Result<Void, ThumbnailFailure> {
        defer { queues.withLock { _ = $0.taken.remove(hash) } }
        if isComplete(hash) { return .success(()) }
        let data: Data
        do {
            let reader = try originals.openForReading(hash)
            defer { reader.close() }
            let size = try reader.size()
            guard size <= Self.maximumOriginalBytes else {
                return refuse(hash, "the file is \(size) bytes, more than the \(Self.maximumOriginalBytes) bytes thumbnails are made of")
            }
            // A piece at a time into one buffer: the original is held once, not twice.
            var bytes = Data(capacity: size)
            while bytes.count < size {
                let piece = try reader.read(count: min(Self.readPiece, size - bytes.count), at: bytes.count)
                if piece.isEmpty { break }
                bytes.append(contentsOf: piece)
            }
            data = bytes
        } catch {
            return .failure(.unreadable(error.localizedDescription))
        }
        let sizes = ThumbnailSize.allCases.map(\.rawValue)
        let thumbnails: [Thumbnail]
        do {
            thumbnails = try Thumbnailer.thumbnails(of: data, longEdges: sizes, limits: limits)
        } catch {
            return refuse(hash, error.localizedDescription)
        }
        do {
            for (size, thumbnail) in zip(sizes, thumbnails) {
                try derived.storeThumbnail(Array(thumbnail.jpeg), of: hash, size: size)
            }
        } catch {
            return .failure(.storage(error.localizedDescription))
        }
        return .success(())
    }

    /// Records why `hash` yields no thumbnail and returns the failure.
    private func refuse(_ hash: String, _ reason: String) -> Result<Void, ThumbnailFailure> {
        do {
            try derived.recordFailure(reason, of: hash)
        } catch {
            log("cannot record why \(hash.prefix(12)) has no thumbnail: \(error.localizedDescription)")
        }
        log("no thumbnail of \(hash.prefix(12)): \(reason)")
        return .failure(.undecodable(reason))
    }
}
