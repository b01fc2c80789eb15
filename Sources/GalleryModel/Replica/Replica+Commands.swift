/// Local commands: each makes one op, applies it here, and returns it for the peers.
extension Replica {
    /// Creates a gallery (or re-announces an existing one: galleries are identified by name).
    ///
    /// - Complexity: O(1) expected.
    @discardableResult
    package mutating func createGallery(_ name: String) throws(ModelError) -> Op {
        try Self.validateGalleryName(name)
        let shown = shownGallery(name)
        if let existing = galleryLookup(name), existing != shown {
            // That identity is renamed or deleted: a deleted one comes back under its name.
            guard shown == nil, isGalleryDeleted(existing) else { throw .galleryNameTaken(name) }
            return try stamp(.renameGallery(name: name, to: name))
        }
        guard shown == nil || galleryLookup(name) != nil else { throw .galleryNameTaken(name) }
        return try stamp(.createGallery(name: name))
    }

    /// Inserts items as one contiguous run whose first item lands at `index` of the gallery, in
    /// one op; a run that one op cannot hold within `FieldLimits` is refused (`outOfBounds`):
    /// `insertRun(_:into:at:)` makes it as several chained ops.
    ///
    /// - Parameters:
    ///   - drafts: The new items, in order; placeholders wait for a `commit`.
    ///   - gallery: An existing gallery.
    ///   - index: A position in `0...count`; `count` appends.
    /// - Returns: The op; its items have the IDs `op.id.advanced(by: 0..<drafts.count)`.
    /// - Complexity: O(log n + k) for k items.
    @discardableResult
    package mutating func insert(_ drafts: [ItemDraft], into gallery: String, at index: Int) throws(ModelError) -> Op {
        try Self.validate(drafts)
        guard let target = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        let (after, before) = try anchors(at: index, in: target, excluding: nil)
        return try stamp(.insert(gallery: galleryNames[Int(target)], after: after, before: before, items: drafts))
    }

    /// Moves an item so that it stands at `index` of `gallery` (any gallery of the space), as
    /// counted once the item has left its current place.
    ///
    /// - Complexity: O(log n).
    @discardableResult
    package mutating func move(_ item: OpID, to gallery: String, at index: Int) throws(ModelError) -> Op {
        let record = try liveItem(item)
        guard !isInTrash(record) else { throw .itemInTrash(item) }
        guard let target = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        let current = items[Int(record)].slot
        let excluded = slots[current].gallery == target ? current : nil
        let (after, before) = try anchors(at: index, in: target, excluding: excluded)
        return try stamp(.move(item: item, gallery: galleryNames[Int(target)], after: after, before: before))
    }

    /// Deletes an item, finally.
    ///
    /// - Complexity: O(log n).
    @discardableResult
    package mutating func delete(_ item: OpID) throws(ModelError) -> Op {
        _ = try liveItem(item)
        return try stamp(.delete(item: item))
    }

    /// Sets one field of an item (`.none` clears it).
    ///
    /// - Complexity: O(1) expected.
    @discardableResult
    package mutating func update(_ item: OpID, _ field: ItemField, to value: FieldValue) throws(ModelError) -> Op {
        _ = try liveItem(item)
        guard field.accepts(value) else { throw .invalidFieldValue(field) }
        if let problem = FieldLimits.problem(with: value, for: field) { throw .outOfBounds(problem) }
        return try stamp(.update(item: item, field: field, value: value))
    }

    /// Turns a placeholder into a ready item, wherever it stands now.
    ///
    /// - Complexity: O(1) expected.
    @discardableResult
    package mutating func commit(_ item: OpID) throws(ModelError) -> Op {
        let record = try liveItem(item)
        guard items[Int(record)].isPlaceholder else { throw .notAPlaceholder(item) }
        return try stamp(.commit(item: item))
    }

    // MARK: Internals

    /// Stamps an action with the next op ID and applies it; an op outside `FieldLimits` (one that
    /// peers would refuse) is never made.
    mutating func stamp(_ action: Op.Action) throws(ModelError) -> Op {
        let own = table.appliedCounter(of: id)
        var op = Op(id: OpID(counter: clock + 1, replica: id), previous: own, action: action)
        if let problem = FieldLimits.problem(with: op) { throw .outOfBounds(problem) }
        if authenticator != nil { op.seal = withAuthenticator { $0.seal(op) } ?? nil }
        try apply(op)
        return op
    }

    /// A known item that is not deleted.
    @inline(__always)
    func liveItem(_ item: OpID) throws(ModelError) -> Int32 {
        guard let index = itemIndex(of: item) else { throw .unknownItem(item) }
        guard !items[Int(index)].isDeleted else { throw .itemDeleted(item) }
        return index
    }

    /// The IDs of the two adjacent slots (tombstones included) between which a new slot lands at
    /// visible `index`, not counting the visible slot `excluded`. The new slot goes immediately
    /// before the visible item now at that index, after any tombstones that precede it.
    @inline(__always)
    func anchors(at index: Int, in gallery: Int32, excluding excluded: Int32?) throws(ModelError) -> (OpID?, OpID?) {
        let visible = slots.visibleCount(gallery)
        let excludedRank = excluded.map { slots.visibleRank($0) }
        let count = visible - (excluded == nil ? 0 : 1)
        guard index >= 0, index <= count else { throw .indexOutOfRange(index: index, count: count) }
        var position = index
        if let excludedRank, index >= excludedRank { position += 1 }
        let (before, after) = position < visible
            ? slots.visibleSlotAndPredecessor(at: position, in: gallery)
            : (-1, slots.last(gallery))
        return (after < 0 ? nil : table.unpack(slots[after].key), before < 0 ? nil : table.unpack(slots[before].key))
    }
}
