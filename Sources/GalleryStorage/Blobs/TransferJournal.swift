import Foundation

/// `DIR/transfers.json`: the transfers in flight, rewritten whole (temporary file, fsync, rename)
/// whenever one starts or ends.
///
/// The placeholders themselves are in the op log; the journal adds what the ops do not say: the
/// deadline and whether the drag was a move. A placeholder of this node missing from the journal
/// (the node stopped between inserting it and recording it) is resumed as a copy with a fresh
/// deadline, so nothing is ever lost.
package struct TransferJournal<Record: Codable & Sendable>: Sendable {
    /// The journal file.
    package let file: URL

    /// A journal kept in `file`.
    package init(file: URL) {
        self.file = file
    }

    /// The records; none when the file is absent or unreadable (its placeholders are still
    /// resumed, from the op log).
    package func load() -> [Record] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        return (try? JSONDecoder().decode([Record].self, from: data)) ?? []
    }

    /// Replaces the journal by `records`, in this order.
    package func save(_ records: [Record]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(records)
        try NodeDirectory(url: file.deletingLastPathComponent()).writeAtomically(Array(data), to: file)
    }
}
