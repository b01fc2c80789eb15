import Foundation
import GalleryModel

/// Transfers left unresolved by an earlier run of the node.
extension TransferManager {
    /// Resumes every placeholder this node inserted and has not resolved: with its journal record
    /// when there is one, else as a copy with a fresh deadline; one past its deadline, or with a
    /// malformed hash or size, is deleted. Placeholders without a hash are not transfers: untouched.
    func resumeUnresolved() {
        guard let node else { return }
        let recorded = Dictionary(journal.load().map { ($0.placeholder, $0) }, uniquingKeysWith: { a, _ in a })
        let now = calendarNow
        let (found, broken) = node.read { replica -> ([Transfer], [OpID]) in
            var found: [Transfer] = []
            var broken: [OpID] = []
            for item in replica.livePlaceholders(insertedBy: replica.id) {
                // A placeholder that names no bytes is not a transfer of this node's: left alone.
                guard let hash = item.contentHash else { continue }
                guard FieldLimits.isContentHash(hash), let size = item.byteSize, size >= 0 else {
                    broken.append(item.id)
                    continue
                }
                let record = recorded[item.id].flatMap { $0.hash == hash ? $0 : nil }
                found.append(record ?? Transfer(
                    placeholder: item.id, source: item.origin ?? item.id, hash: hash, size: Int(size), move: false,
                    deadline: now.addingTimeInterval(Double(Self.defaultTimeout.components.seconds))))
            }
            return (found, broken)
        }
        let expired = found.filter { $0.deadline <= now }.map(\.placeholder)
        begin(found.filter { $0.deadline > now })
        lock.withLock { journalDirty = true }
        flushJournal()
        if !found.isEmpty || !broken.isEmpty {
            node.configuration.log("\(node.configuration.name): resuming \(found.count - expired.count) transfers, "
                + "\(expired.count + broken.count) past their deadline or without bytes to fetch")
        }
        fail(expired, reason: "timed out: the deadline passed while the node was stopped")
        fail(broken, reason: "the placeholder names no valid bytes to fetch")
    }
}
