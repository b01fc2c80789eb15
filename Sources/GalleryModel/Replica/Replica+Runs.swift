/// Runs of items too large for one op: several chained inserts that land as one contiguous run.
extension Replica {
    /// Inserts items as one contiguous run whose first item lands at `index` of the gallery, in as
    /// many insert ops as `FieldLimits` needs (at most `itemsPerInsert.upperBound` items and
    /// `maxEncodedOpSize` bytes each), so that every op fits any peer's frame.
    ///
    /// The ops are chained: the first is anchored as `insert(_:into:at:)` anchors it, between the
    /// slots `L` and `R`; each later op between the last item of the op before it and the same `R`.
    /// So every item has the origins (left: the item before it in the run, right: `R`) and, the
    /// counters being consecutive, the ID it would have in one insert of the whole run: every
    /// replica orders the run exactly as it would order that one op (protocol.md, "Op encoding").
    ///
    /// Nothing changes when the run is refused: every check runs before the first op is made.
    ///
    /// - Returns: The ops, in order. Item `k` of the run has the ID `ops[0].id.advanced(by: k)`.
    /// - Complexity: O(log n + k + b) for k items of b bytes.
    @discardableResult
    package mutating func insertRun(_ drafts: [ItemDraft], into gallery: String, at index: Int) throws(ModelError) -> [Op] {
        try Self.validate(drafts)
        guard let target = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        let gallery = galleryNames[Int(target)]
        guard clock + UInt64(drafts.count) <= PackedID.maxCounter else {
            throw .counterOverflow(OpID(counter: clock + UInt64(drafts.count), replica: id))
        }
        var (after, before) = try anchors(at: index, in: target, excluding: nil)
        var ops: [Op] = []
        for part in Self.parts(of: drafts, gallery: gallery) {
            let op = try stamp(.insert(gallery: gallery, after: after, before: before, items: Array(drafts[part])))
            ops.append(op)
            after = op.id.advanced(by: part.count - 1)
        }
        return ops
    }

    /// Refuses an empty run, a value of the wrong type, and a value outside `FieldLimits`.
    static func validate(_ drafts: [ItemDraft]) throws(ModelError) {
        guard !drafts.isEmpty else { throw .emptyInsert }
        for draft in drafts where !draft.fields.isEmpty {
            for (field, value) in draft.fields {
                guard field.accepts(value) else { throw .invalidFieldValue(field) }
                if let problem = FieldLimits.problem(with: value, for: field) { throw .outOfBounds(problem) }
            }
        }
    }

    /// The ranges of `drafts` that make one op each: greedy, within the item count and within the
    /// op size by an upper bound of each item's encoded size.
    ///
    /// - Complexity: O(k) for k items.
    static func parts(of drafts: [ItemDraft], gallery: String) -> [Range<Int>] {
        let budget = FieldLimits.maxEncodedOpSize - OpCodec.maxInsertOverhead(gallery: gallery)
        let maximumCount = FieldLimits.itemsPerInsert.upperBound
        var parts: [Range<Int>] = []
        var start = 0
        var size = 0
        for (index, draft) in drafts.enumerated() {
            let itemSize = OpCodec.maxEncodedSize(of: draft)
            if index > start && (size + itemSize > budget || index - start == maximumCount) {
                parts.append(start..<index)
                start = index
                size = 0
            }
            size += itemSize
        }
        parts.append(start..<drafts.count)
        return parts
    }
}
