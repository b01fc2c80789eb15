/// What opening an op log found: the intact records kept and the damaged tail cut off.
public struct RecoveryReport: Hashable, Sendable, CustomStringConvertible {
    /// Intact records read (one op each).
    public var records: Int
    /// The length the file kept, header included: everything up to the end of the last intact record.
    public var validBytes: Int
    /// Bytes cut off the end of the file because they did not form an intact record.
    public var droppedBytes: Int
    /// Why the scan stopped before the end of the file, or nil if every byte was an intact record.
    public var reason: String?

    /// Creates a report.
    public init(records: Int, validBytes: Int, droppedBytes: Int, reason: String?) {
        self.records = records
        self.validBytes = validBytes
        self.droppedBytes = droppedBytes
        self.reason = reason
    }

    /// One line for the node's log, e.g. "recovered 200 records (9012 bytes); dropped 17 bytes: ...".
    public var description: String {
        let kept = "recovered \(records) records (\(validBytes) bytes)"
        guard droppedBytes > 0 || reason != nil else { return kept }
        return "\(kept); dropped \(droppedBytes) bytes: \(reason ?? "damaged tail")"
    }
}
