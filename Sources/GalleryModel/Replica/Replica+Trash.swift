/// The Trash of a space (docs/design.md, "Trash"): an item is in it when its `trashed` field is
/// set or its gallery is deleted, and it is not deleted. An item in the Trash keeps its slot in
/// the gallery it left (hidden), so that a restore brings it back to that place, between the
/// neighbours it had as nearly as the gallery now allows.
extension Replica {
    /// Whether the item's `trashed` register is set.
    @inline(__always)
    func isTrashed(_ item: Int32) -> Bool {
        guard let fields = extraFields[item] else { return false }
        return fields[.trashed] != nil
    }

    /// Whether the item is in the Trash: not deleted, and moved there or in a deleted gallery.
    @inline(__always)
    func isInTrash(_ item: Int32) -> Bool {
        let record = items[Int(item)]
        return !record.isDeleted && (isTrashed(item) || isGalleryDeleted(slots[record.slot].gallery))
    }

    /// Moves an item to the Trash; `time` (Unix milliseconds) is when, for the 30 days it is kept.
    ///
    /// - Throws: `.unknownItem`, `.itemDeleted`, or `.itemInTrash` when it is there already.
    /// - Complexity: O(log n).
    @discardableResult
    package mutating func trash(_ id: OpID, at time: Int64) throws(ModelError) -> Op {
        let item = try liveItem(id)
        guard !isInTrash(item) else { throw .itemInTrash(id) }
        return try stamp(.update(item: id, field: .trashed, value: .integer(time)))
    }

    /// Takes an item out of the Trash, back to the slot it left: clears its `trashed` register,
    /// and brings its gallery back when that was deleted.
    ///
    /// - Throws: `.unknownItem`, `.itemDeleted`, or `.notInTrash`.
    /// - Returns: The ops made (one or two).
    @discardableResult
    package mutating func restore(_ id: OpID) throws(ModelError) -> [Op] {
        let item = try liveItem(id)
        guard isInTrash(item) else { throw .notInTrash(id) }
        var made: [Op] = []
        if isTrashed(item) { made.append(try stamp(.update(item: id, field: .trashed, value: .none))) }
        let gallery = slots[items[Int(item)].slot].gallery
        if isGalleryDeleted(gallery) { made.append(try reviveGallery(identity: galleryNames[Int(gallery)])) }
        return made
    }

    /// The items in the Trash, the most recently trashed first (those of a deleted gallery that
    /// were never trashed themselves count as the most recent), then by ID.
    ///
    /// - Complexity: O(n log n) for n items ever inserted.
    package var trash: [Item] {
        var found: [(time: Int64, item: Item)] = []
        for index in items.indices where isInTrash(Int32(index)) {
            let item = snapshot(Int32(index))
            found.append((item.fields[.trashed]?.integer ?? .max, item))
        }
        return found.sorted { $0.time != $1.time ? $0.time > $1.time : $0.item.id < $1.item.id }.map(\.item)
    }

    /// The ID of the op that put the item where it stands (its insert or its winning move): a
    /// later move by anyone changes it.
    package func placement(of id: OpID) -> OpID? {
        guard let item = itemIndex(of: id) else { return nil }
        return table.unpack(slots[items[Int(item)].slot].key)
    }

    /// The identity of the gallery an item stands in (or left, when in the Trash).
    package func galleryIdentity(ofItem id: OpID) -> String? {
        guard let item = itemIndex(of: id) else { return nil }
        return galleryNames[Int(slots[items[Int(item)].slot].gallery)]
    }

    /// The ID of the op that last set a field of an item (its insert, when no update did).
    package func lastWriter(of field: ItemField, of id: OpID) -> OpID? {
        guard let item = itemIndex(of: id) else { return nil }
        return table.unpack(fieldStamps[Self.fieldKey(item: item, field: field)] ?? items[Int(item)].key)
    }

    /// Moves an item right after a slot (the place an item stood, such as its own before a move,
    /// kept as a tombstone), in that slot's gallery: what an undo of a move does.
    ///
    /// - Throws: `.unknownItem`, `.itemDeleted`, `.itemInTrash`, or `.unknownItem(slot)` when
    ///   `slot` names no slot here.
    @discardableResult
    package mutating func move(_ id: OpID, rightAfter slot: OpID) throws(ModelError) -> Op {
        let item = try liveItem(id)
        guard !isInTrash(item) else { throw .itemInTrash(id) }
        guard let anchor = table.slot(for: slot) else { throw .unknownItem(slot) }
        let next = slots.successor(anchor)
        return try stamp(.move(
            item: id, gallery: galleryNames[Int(slots[anchor].gallery)], after: slot,
            before: next < 0 ? nil : table.unpack(slots[next].key)))
    }
}
