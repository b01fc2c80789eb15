import GalleryModel

/// What opening an op log found: the intact records kept, and the damaged bytes skipped or cut.
package struct RecoveryReport: Hashable, Sendable, CustomStringConvertible {
    /// Intact records kept in the file.
    package var records: Int
    /// The length the file kept, header included.
    package var validBytes: Int
    /// Bytes dropped from the file because they did not form intact records.
    package var droppedBytes: Int
    /// Why the first damaged bytes were not a record, or nil if every byte was an intact record.
    package var reason: String?
    /// The damaged byte ranges, in file order (offsets in the file as it was found).
    package var damage: [Range<Int>]
    /// Intact records found after the first damaged range (kept, not dropped).
    package var recordsAfterDamage: Int
    /// A compacted op file's ops after its first damage, which the file no longer holds (the node
    /// moves them to its record log before the file is cut).
    package var displaced: [Op]

    /// Creates a report.
    package init(
        records: Int, validBytes: Int, droppedBytes: Int, reason: String?,
        damage: [Range<Int>] = [], recordsAfterDamage: Int = 0, displaced: [Op] = []
    ) {
        self.records = records
        self.validBytes = validBytes
        self.droppedBytes = droppedBytes
        self.reason = reason
        self.damage = damage
        self.recordsAfterDamage = recordsAfterDamage
        self.displaced = displaced
    }

    /// Whether records may have been lost: damaged bytes were found (whatever they held is gone).
    package var lostRecords: Bool {
        !damage.isEmpty
    }

    /// One line for the node's log, e.g. "recovered 200 records (9012 bytes); dropped 17 bytes: ...".
    package var description: String {
        let kept = "recovered \(records) records (\(validBytes) bytes)"
        guard droppedBytes > 0 || reason != nil else { return kept }
        var line = "\(kept); dropped \(droppedBytes) bytes: \(reason ?? "damaged tail")"
        if damage.count > 1 || recordsAfterDamage > 0 {
            let ranges = damage.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ")
            line += " (damaged ranges \(ranges); \(recordsAfterDamage) intact records after the first kept)"
        }
        return line
    }
}
