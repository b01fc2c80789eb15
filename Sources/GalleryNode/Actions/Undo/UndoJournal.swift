import GalleryModel
import Synchronization

/// What this node's people did that can be undone, kept in memory (an undo is for the minutes
/// after an action; a restarted node starts with an empty journal): the last `capacity` entries
/// by ID, and a stack of undos and of redos per scope (`commandLine` for `gallery undo` and
/// `gallery redo`; the page keeps its own stacks of entry IDs, per tab).
package final class UndoJournal: Sendable {
    /// One action: what it did, in the words of its toast, and its steps in the order made.
    package struct Entry: Hashable, Sendable {
        package let id: Int
        package let label: String
        package let steps: [UndoStep]
    }

    /// The scope of the command line's `undo` and `redo`.
    package static let commandLine = "cli"
    /// The most entries kept.
    package static let capacity = 256

    private struct State {
        var entries: [Int: Entry] = [:]
        var nextID = 1
        var undos: [String: [Int]] = [:]
        var redos: [String: [Int]] = [:]
        /// The op each undo (or redo) made, with the op whose register state it brought back.
        var aliases: [OpID: OpID?] = [:]
    }

    /// The most aliases kept (they are forgotten all at once beyond: older actions then show as
    /// changed since, and are left as they are).
    static let aliasCapacity = 100_000

    private let state = Mutex(State())

    package init() {}

    /// Records an action; with a scope, it becomes that scope's next undo and its redos are
    /// dropped (a new action ends the redo chain, as in every editor). Nil when it has no step.
    @discardableResult
    package func record(_ label: String, _ steps: [UndoStep], scope: String? = nil) -> Entry? {
        guard !steps.isEmpty else { return nil }
        return state.withLock { state in
            let entry = Entry(id: state.nextID, label: label, steps: steps)
            state.nextID += 1
            state.entries[entry.id] = entry
            state.entries.removeValue(forKey: entry.id - Self.capacity)
            if let scope {
                state.undos[scope, default: []].append(entry.id)
                state.redos[scope] = []
            }
            return entry
        }
    }

    /// The entry of this ID, while it is kept.
    package func entry(_ id: Int) -> Entry? {
        state.withLock { $0.entries[id] }
    }

    /// Records that the undo op `made` brought back the register state that `before` had made.
    package func alias(_ made: OpID, to before: OpID?) {
        state.withLock { state in
            if state.aliases.count >= Self.aliasCapacity { state.aliases = [:] }
            state.aliases[made] = .some(before)
        }
    }

    /// The op whose register state `id` stands for: itself, unless an undo made it.
    package func resolve(_ id: OpID?) -> OpID? {
        state.withLock { state in
            var current = id
            for _ in 0..<Self.capacity * 64 {
                guard let known = current, let next = state.aliases[known] else { return current }
                current = next
            }
            return current
        }
    }

    /// Takes the scope's last undo (or redo) off its stack: the newest entry still kept.
    package func pop(_ scope: String, redo: Bool) -> Entry? {
        state.withLock { state in
            while true {
                let id = redo ? state.redos[scope]?.popLast() : state.undos[scope]?.popLast()
                guard let id else { return nil }
                if let entry = state.entries[id] { return entry }
            }
        }
    }

    /// Pushes an entry on the scope's redo stack (after an undo) or undo stack (after a redo),
    /// keeping the other stack as it is.
    package func push(_ entry: Entry, _ scope: String, redo: Bool) {
        state.withLock { state in
            if redo { state.redos[scope, default: []].append(entry.id) } else { state.undos[scope, default: []].append(entry.id) }
        }
    }
}
