import Foundation

/// A fixed set of serial stages (`WorkThread`s) that hash and store the chunks of downloads. Each
/// download keeps the stage it was given, so its chunks are stored in the order they arrived;
/// downloads are spread over the stages round robin. A stage's thread exists only while it has
/// work (`WorkThread` ends after an idle spell), so an idle node holds none.
///
/// `@unchecked Sendable`: the stages are fixed at `init`; `turn` is guarded by `lock`.
final class StagePool: @unchecked Sendable {
    /// One stage per core, at least two and at most four: hashing and writing are bound by the CPU
    /// and the disk, which more threads do not widen.
    static let defaultCount = min(4, max(2, ProcessInfo.processInfo.activeProcessorCount))

    private let stages: [WorkThread]
    private let lock = NSLock()
    private var turn = 0

    init(count: Int) {
        precondition(count > 0, "a pool has a stage")
        stages = (0..<count).map { WorkThread(name: "transfer stage \($0)", limit: 1_024) }
    }

    /// The stage for the next download.
    func next() -> WorkThread {
        lock.withLock {
            defer { turn = (turn + 1) % stages.count }
            return stages[turn]
        }
    }

    /// How many stages there are.
    var count: Int { stages.count }
}
