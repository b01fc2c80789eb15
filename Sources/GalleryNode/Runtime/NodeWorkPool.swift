import Foundation

/// The node's fixed pool of workers for the work that neither the inbox nor an event loop may do
/// (hashing and storing received chunks, the transfers' pass, thumbnails, answering `holds_query`,
/// the op log mirror's fsync): a few threads in production (`WorkPool`), a lane of the scheduler in
/// `GalleryMeshSimulation`. However many downloads, pictures or peers, the node's threads for this
/// work are the pool's `width`.
package protocol NodeWorkPool: AnyObject, Sendable {
    /// The most jobs that run at once.
    var width: Int { get }
    /// A serial lane on the pool: its jobs run one at a time, in the order queued, on whichever
    /// worker is free (a download's chunks, the transfers' pass). Lanes cost no thread.
    func makeLane(_ name: String) -> any NodeExecutor
    /// Runs `job` once on a free worker, in no order with other jobs.
    func async(_ job: @escaping @Sendable () -> Void)
}

extension NodeWorkPool {
    /// The workers production uses: one per core, at least two and at most four (hashing, writing
    /// and decoding are bound by the CPU and the disk, which more threads do not widen).
    package static var defaultWidth: Int { min(4, max(2, ProcessInfo.processInfo.activeProcessorCount)) }
}
