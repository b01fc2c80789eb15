import Foundation

/// Why the model refused a local command or a received op. A refused command or op changes nothing.
package enum ModelError: Error, Hashable, Sendable, LocalizedError {
    /// No gallery of that name exists on this replica.
    case unknownGallery(String)
    /// A gallery name must be non-empty and at most 255 bytes of UTF-8.
    case invalidGalleryName(String)
    /// The item is not known to this replica.
    case unknownItem(OpID)
    /// The item was deleted; deletes are final.
    case itemDeleted(OpID)
    /// An index outside `0...count` (insert) or `0..<count` (lookup).
    case indexOutOfRange(index: Int, count: Int)
    /// `commit` of an item that is not a placeholder.
    case notAPlaceholder(OpID)
    /// A field value of the wrong type for the field.
    case invalidFieldValue(ItemField)
    /// An insert with no items.
    case emptyInsert
    /// A field, an item count or an op outside the bounds of `FieldLimits`, with the reason.
    case outOfBounds(String)
    /// A received op references slots or items that do not fit it (another gallery, wrong order,
    /// an op that is not an item): it cannot come from a correct replica.
    case malformedOp(OpID, String)
    /// A received op contradicts ops already applied from its replica (a reused op ID).
    case conflictingHistory(OpID)
    /// A received op carries the ID of an op this replica holds (applied or waiting) but differs
    /// from it: two versions of one op ID exist in the space. The op is refused.
    case divergentOp(OpID)
    /// The early-op buffer is full, and the op's source holds at least as many early ops as any
    /// other; the op must be delivered again later.
    case bufferFull(OpID)
    /// The op's source already holds its quota of early ops (`BufferLimits.opsPerSource`,
    /// `bytesPerSource`): a correct peer sends ops in causal order and never gets near it.
    case sourceQuotaExceeded(OpID, source: Int)
    /// The op's counter does not fit in 48 bits.
    case counterOverflow(OpID)
    /// The op's last counter is more than `Replica.maxCounterLead` (2^32) beyond the greatest counter
    /// this replica knows (`highestKnown`): one op could otherwise use up the 48-bit counter space
    /// and leave no counter for anyone's next op.
    case counterTooFarAhead(OpID, highestKnown: UInt64)
    /// The item is in the Trash: restore it first.
    case itemInTrash(OpID)
    /// The item is not in the Trash.
    case notInTrash(OpID)
    /// Another gallery is shown under that name, or has it as its identity.
    case galleryNameTaken(String)
    /// This replica already knows the maximum number of replicas (65,536).
    case tooManyReplicas
    /// A received op that its replica's key did not sign (or a replica bound to another key), with
    /// the reason: a member forging another's ops (protocol.md, "Signed ops").
    case forgedOp(OpID, String)

    package var errorDescription: String? {
        switch self {
        case .unknownGallery(let name): "no gallery named \"\(name)\""
        case .invalidGalleryName(let name): "invalid gallery name \"\(name)\" (1 to 255 bytes)"
        case .unknownItem(let id): "no item \(id)"
        case .itemDeleted(let id): "item \(id) was deleted"
        case .indexOutOfRange(let index, let count): "index \(index) out of range (count \(count))"
        case .notAPlaceholder(let id): "item \(id) is not a placeholder"
        case .invalidFieldValue(let field): "wrong type of value for field \(field)"
        case .emptyInsert: "an insert needs at least one item"
        case .outOfBounds(let reason): reason
        case .malformedOp(let id, let reason): "malformed op \(id): \(reason)"
        case .conflictingHistory(let id): "op \(id) conflicts with ops already applied from its replica"
        case .divergentOp(let id): "op \(id) differs from the op held here under that ID: two versions of one op ID"
        case .bufferFull(let id): "buffer of early ops is full; op \(id) must be sent again"
        case .sourceQuotaExceeded(let id, _): "too many ops of this peer wait for their dependencies; op \(id) refused"
        case .counterOverflow(let id): "op \(id) has a counter beyond 2^48"
        case .counterTooFarAhead(let id, let highestKnown):
            "op \(id) has a counter more than 2^32 beyond the greatest counter known here (\(highestKnown))"
        case .tooManyReplicas: "too many replicas in one space (65,536)"
        case .itemInTrash(let id): "item \(id) is in the Trash (restore it first)"
        case .notInTrash(let id): "item \(id) is not in the Trash"
        case .galleryNameTaken(let name): "the name \"\(name)\" is taken by another gallery"
        case .forgedOp(let id, let reason): "op \(id) is not signed by its replica's key: \(reason)"
        }
    }
}
