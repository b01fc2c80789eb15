import Foundation
import Synchronization

/// What the chaos run did, kept to judge the end state: what each acknowledged command did, and
/// what each issued command (acknowledged or not: a node may have carried it out before it was
/// killed) may have done.
final class ChaosLedger: Sendable {
    /// One item dropped by a `drag`, as its output line says.
    struct Drop: Sendable {
        var node: String
        var source: String
        var item: String
        /// `placeholder`, `committed`, `moved` or `copied`.
        var action: String
        var move: Bool
        /// `committed`, `failed: ...`, or nil when the drag did not wait (or its wait was cut).
        var outcome: String?
    }

    /// The counts of the summary line.
    struct Counts: Sendable {
        var issued = 0
        var acknowledged = 0
        var drags = 0
        var transfers = 0
        /// Transfers whose wait ended otherwise than committed, and those of them that timed out.
        var transfersFailed = 0
        var transfersTimedOut = 0
        var kills = 0
        var disconnects = 0
        var pauses = 0
    }

    /// Everything recorded, guarded by the mutex.
    struct Record: Sendable {
        var counts = Counts()
        /// Items an acknowledged command created (by `add`, or a drop's copy that exists for sure):
        /// present at the end unless a command that may remove them was issued.
        var created: [String: String] = [:]
        /// The titles an item may show: its file's name (when added) and every title an update of it asked.
        var titles: [String: Set<String>] = [:]
        /// How many issued commands may remove each item: deletes, cancels of its transfer, `--move` drags of it.
        var removers: [String: Int] = [:]
        /// Items whose delete was acknowledged.
        var deleted: Set<String> = []
        /// Transfers whose cancel was acknowledged.
        var cancelled: Set<String> = []
        /// Every item of every acknowledged drag.
        var drops: [Drop] = []
        /// Galleries whose `new-gallery` was acknowledged.
        var galleries: Set<String> = []
        /// Item IDs known to exist somewhere, for the workers to pick from.
        var pool: [String] = []
        /// Transfers started by drags that did not wait, by the node that runs them.
        var pending: [(node: String, transfer: String)] = []
    }

    private let record = Mutex(Record())

    /// Reads or changes the record.
    func update<Value>(_ body: (inout Record) -> Value) -> Value {
        record.withLock { body(&$0) }
    }

    /// A snapshot of the record.
    var snapshot: Record { record.withLock { $0 } }

    /// Notes, before issuing it, a command that may remove `items`.
    func mayRemove(_ items: [String]) {
        record.withLock { record in
            for item in items { record.removers[item, default: 0] += 1 }
        }
    }
}
