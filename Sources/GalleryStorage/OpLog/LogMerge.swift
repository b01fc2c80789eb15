import GalleryModel

/// The record log and its mirror laid side by side: every record intact in either file kept once,
/// in log order, and the byte ranges that neither file holds intact (records lost here).
///
/// The two files are written with the same bytes at the same offsets, so a record sits at one
/// offset in both. One exception: a crash between the two renames of a checkpoint leaves the
/// mirror with records at its head that the log already dropped (ops of the compacted file), so
/// every offset of the mirror is `shift` bytes past the log's. `shift` is read from the first record
/// intact in both (the same op, the same bytes), 0 when there is none.
///
/// Then, offsets counted as the log's: every intact record of either file, in order of offset (the
/// log's first where both hold one), is kept unless a record of the same op ID was kept before (a
/// second copy; if its bytes differ, the first is kept and the difference reported). A byte range
/// that no intact record covers, from the first file's head to the longer file's end, is damaged
/// in both or exists in neither: whatever records it held are lost. Only then are records lost,
/// and the report's `damage` lists those ranges. One exception: a tail where one file ends and the
/// other ends inside the record that starts there is a write cut by a crash; what it held was never
/// whole in both files, so never synced in both, acknowledged or sent: it is dropped, not lost.
///
/// - Complexity: O(n log n) in the records of both files, and their bytes copied once.
struct LogMerge {
    /// The records kept, one after another (the file's header not included).
    private(set) var bytes: [UInt8] = []
    /// Their ops, in that order.
    private(set) var ops: [Op] = []
    /// Records kept, and the ranges lost in both files (in the log's offsets), if any.
    private(set) var report: RecoveryReport
    /// One line per file repaired from the other, per range lost, per op held in two versions.
    private(set) var repairs: [String] = []

    /// One intact record of one of the files.
    private struct Piece {
        /// Where it starts and ends, counted in the log's offsets.
        var start: Int
        var end: Int
        /// Which file holds it, and where.
        var inLog: Bool
        var index: Int
        var op: Op
    }

    /// Merges the two files read at start (`LogCopy`s with their bytes loaded and ops decoded);
    /// `names` are the log's and the mirror's file names, for the report.
    init(primary log: LogCopy, mirror: LogCopy, names: (log: String, mirror: String)) {
        precondition(log.scan.ops.count == log.scan.intactRecords.count && mirror.scan.ops.count == mirror.scan.intactRecords.count,
                     "one op per record, every record decoded")
        let shift = Self.shift(log, mirror)
        var pieces = Self.pieces(of: log, inLog: true, shift: 0) + Self.pieces(of: mirror, inLog: false, shift: shift)
        pieces.sort { ($0.start, $0.inLog ? 0 : 1) < ($1.start, $1.inLog ? 0 : 1) }

        let header = OpLogFile.headerLength
        var cursor = min(header, header - shift)
        let end = max(log.size, mirror.size - shift)
        var lost: [Range<Int>] = []
        var kept: [OpID: ArraySlice<UInt8>] = [:]
        var divergent: [OpID] = []
        var keptFrom = (log: Set<OpID>(), mirror: Set<OpID>())
        var afterFirstLoss = 0
        for piece in pieces {
            if piece.start > cursor { lost.append(cursor..<piece.start) }
            cursor = max(cursor, piece.end)
            let record = piece.inLog ? log.record(piece.index) : mirror.record(piece.index)
            if let held = kept[piece.op.id] {
                if held != record { divergent.append(piece.op.id) }
                continue
            }
            kept[piece.op.id] = record
            bytes += record
            ops.append(piece.op)
            if piece.inLog { keptFrom.log.insert(piece.op.id) } else { keptFrom.mirror.insert(piece.op.id) }
            if !lost.isEmpty { afterFirstLoss += 1 }
        }
        // A tail where one file ends and the other ends inside a record is a write that a crash
        // cut: never whole in both files, so never synced in both, acknowledged nor sent. Dropped,
        // not lost. Both cut inside a record is two faults, or acknowledged records cut from both.
        var torn = 0
        if end > cursor {
            let tails = (Self.tail(of: log, at: cursor), Self.tail(of: mirror, at: cursor + shift))
            if tails == (.absent, .torn) || tails == (.torn, .absent) {
                torn = end - cursor
            } else {
                lost.append(cursor..<end)
            }
        }

        let lostBytes = lost.reduce(0) { $0 + $1.count }
        let reason = lost.isEmpty && torn == 0 ? nil : (log.scan.reason ?? mirror.scan.reason ?? "records missing from both files")
        report = RecoveryReport(
            records: ops.count, validBytes: header + bytes.count, droppedBytes: lostBytes + torn, reason: reason,
            damage: lost, recordsAfterDamage: afterFirstLoss)

        let logOps = Set(log.scan.ops.map(\.id)), mirrorOps = Set(mirror.scan.ops.map(\.id))
        let intoLog = ops.filter { !logOps.contains($0.id) }.count
        let intoMirror = ops.filter { !mirrorOps.contains($0.id) }.count
        if !log.headerIntact { repairs.append("\(names.log): its header was damaged; restored from \(names.mirror)") }
        if !mirror.headerIntact { repairs.append("\(names.mirror): its header was damaged; restored from \(names.log)") }
        if intoLog > 0 { repairs.append("\(names.log): \(intoLog) records restored from \(names.mirror) (\(Self.damage(of: log)))") }
        if intoMirror > 0 { repairs.append("\(names.mirror): \(intoMirror) records restored from \(names.log) (\(Self.damage(of: mirror)))") }
        if intoLog == 0 && log.scan.damagedBytes > 0 && lost.isEmpty {
            repairs.append("\(names.log): \(Self.damage(of: log)); its copy in \(names.mirror) holds every record, rewritten from it")
        }
        if intoMirror == 0 && mirror.scan.damagedBytes > 0 && lost.isEmpty {
            repairs.append("\(names.mirror): \(Self.damage(of: mirror)); rewritten from \(names.log)")
        }
        if !lost.isEmpty {
            repairs.append("\(names.log) and \(names.mirror): bytes \(Self.list(lost)) damaged in both (\(reason ?? "")): "
                + "the records there are lost here and asked from peers")
        }
        if !divergent.isEmpty {
            repairs.append("\(names.log) and \(names.mirror) hold two versions of op \(divergent.map(\.description).prefix(3).joined(separator: ", ")); "
                + "the first in the log kept")
        }
    }

    /// What a file holds from `offset` on, where no intact record starts.
    private enum Tail {
        /// Nothing: the file ends there.
        case absent
        /// A record whose header or declared length runs past the end of the file.
        case torn
        /// Anything else.
        case damaged
    }

    /// What `side` holds from `offset` to its end.
    private static func tail(of side: LogCopy, at offset: Int) -> Tail {
        let left = side.size - offset
        if left <= 0 { return .absent }
        guard offset >= OpLogFile.headerLength else { return .damaged }
        if left < OpLogFile.recordHeaderLength { return .torn }
        let length = (0..<4).reduce(0) { $0 | Int(side.bytes[offset + $1]) << (8 * $1) }
        return length > left - OpLogFile.recordHeaderLength ? .torn : .damaged
    }

    /// How far the mirror's offsets run past the log's: from the first record intact in both.
    private static func shift(_ log: LogCopy, _ mirror: LogCopy) -> Int {
        var inMirror: [OpID: Int] = [:]
        for (index, op) in mirror.scan.ops.enumerated() where inMirror[op.id] == nil { inMirror[op.id] = index }
        for (index, op) in log.scan.ops.enumerated() {
            guard let other = inMirror[op.id], log.record(index) == mirror.record(other) else { continue }
            return mirror.scan.intactRecords[other].lowerBound - log.scan.intactRecords[index].lowerBound
        }
        return 0
    }

    /// The intact records of one file, at offsets moved back by `shift`.
    private static func pieces(of side: LogCopy, inLog: Bool, shift: Int) -> [Piece] {
        zip(side.scan.intactRecords, side.scan.ops).enumerated().map { index, record in
            Piece(start: record.0.lowerBound - shift, end: record.0.upperBound - shift, inLog: inLog, index: index, op: record.1)
        }
    }

    /// What was wrong with a file, in a few words.
    private static func damage(of side: LogCopy) -> String {
        guard side.scan.damagedBytes > 0 else { return "they were missing from it" }
        return "damaged bytes \(list(side.scan.damage)): \(side.scan.reason ?? "damaged")"
    }

    /// Byte ranges as `a..<b`, the first three.
    private static func list(_ ranges: [Range<Int>]) -> String {
        let shown = ranges.prefix(3).map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: ", ")
        return ranges.count > 3 ? shown + " and \(ranges.count - 3) more" : shown
    }
}
