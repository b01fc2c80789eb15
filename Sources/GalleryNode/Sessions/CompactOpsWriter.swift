import GalleryModel
import GalleryWire

/// The sending side of `ops_compact` on one connection (protocol.md, section 7, "Compact ops"):
/// the replica and gallery tables of this node's direction, and the frames written with them.
///
/// The receiver builds the same tables from the frames in the order it reads them, so frames
/// must be queued in the order they are made, all at the ops priority (which keeps its order):
/// it is used only on the node's loop, by the relay and the catch-up of the connection's session.
/// A class, so that a session holds it without copying its tables on each use.
final class CompactOpsWriter {
    /// This direction's tables, as the receiver will hold them once it has read every frame made.
    private(set) var tables = CompactOpTables()

    init() {}

    /// The frames carrying `ops` in order, each payload at most `maximumBytes` long: `ops_compact`
    /// frames, and an `ops` frame for an op whose compact form alone would be over the size.
    ///
    /// - Complexity: O(b) for b bytes of ops.
    func frames(for ops: some Sequence<Op>, maximumBytes: Int) -> [Frame] {
        OpCodec.encodeCompactBatches(ops, maximumBytes: maximumBytes, tables: &tables).map(Self.frame)
    }

    /// The frames carrying the ops of a canonical `ops` payload (ops from this node's own log,
    /// as the catch-up reads them), as `frames(for:maximumBytes:)` makes them, copied from the
    /// payload but for the names (nothing is decoded into ops).
    ///
    /// - Complexity: O(b) for b bytes of ops.
    func frames(transcoding payload: [UInt8], maximumBytes: Int) -> [Frame] {
        let mark = tables.mark
        do {
            return try OpCodec.transcodeCompactBatches(payload, maximumBytes: maximumBytes, tables: &tables).map(Self.frame)
        } catch {
            // Not canonical ops (the node's own log: never): sent as they are, the tables as before.
            tables.rollBack(to: mark)
            return [Frame(.ops, payload: payload)]
        }
    }

    private static func frame(_ batch: OpCodec.CompactBatch) -> Frame {
        switch batch {
        case .compact(let payload): Frame(.opsCompact, payload: payload)
        case .canonical(let payload): Frame(.ops, payload: payload)
        }
    }
}
