import Foundation

/// `DIR/transfers.json`: the transfers in flight, rewritten whole (temporary file, fsync, rename)
/// whenever one starts or ends.
///
/// The placeholders themselves are in the op log; the journal adds what the ops do not say: the
/// deadline and whether the drag was a move. A placeholder of this node missing from the journal
/// (the node stopped between inserting it and recording it) is resumed as a copy with a fresh
/// deadline, so nothing is ever lost.
struct TransferJournal: Sendable {
    /// The journal file.
    let file: URL

    /// The transfers recorded; none when the file is absent or unreadable (its placeholders are
    /// still resumed, from the op log).
    func load() -> [Transfer] {
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        return (try? JSONDecoder().decode([Transfer].self, from: data)) ?? []
    }

    /// Replaces the journal by `transfers`.
    func save(_ transfers: [Transfer]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(transfers.sorted { $0.placeholder < $1.placeholder })
        try NodeDirectory(url: file.deletingLastPathComponent()).writeAtomically(Array(data), to: file)
    }
}
