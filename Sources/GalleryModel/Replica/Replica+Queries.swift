/// What a replica shows: galleries, their items in order, and where an item stands.
extension Replica {
    /// The names of all galleries, sorted.
    package var galleries: [String] {
        galleryRegisters.isEmpty ? galleryNames.sorted() : shownIndex.keys.sorted()
    }

    /// Whether a gallery of that name exists here.
    package func hasGallery(_ name: String) -> Bool {
        shownGallery(name) != nil
    }

    /// Number of items shown in a gallery.
    ///
    /// - Complexity: O(1).
    package func count(in gallery: String) throws(ModelError) -> Int {
        guard let index = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        return slots.visibleCount(index)
    }

    /// The items of a gallery in order.
    ///
    /// - Complexity: O(n) for n slots of the gallery.
    package func items(in gallery: String) throws(ModelError) -> [Item] {
        guard let index = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        var result: [Item] = []
        result.reserveCapacity(slots.visibleCount(index))
        slots.forEachVisible(in: index) { slot in result.append(snapshot(slots[slot].item)) }
        return result
    }

    /// The item at an index of a gallery.
    ///
    /// - Complexity: O(log n).
    package func item(at index: Int, in gallery: String) throws(ModelError) -> Item {
        guard let galleryIndex = shownGallery(gallery) else { throw .unknownGallery(gallery) }
        let count = slots.visibleCount(galleryIndex)
        guard index >= 0, index < count else { throw .indexOutOfRange(index: index, count: count) }
        return snapshot(slots[slots.visibleSlot(at: index, in: galleryIndex)].item)
    }

    /// An item by ID, deleted or not; nil when it is unknown here.
    ///
    /// - Complexity: O(log r) for r runs of the item's replica.
    package func item(_ id: OpID) -> Item? {
        itemIndex(of: id).map(snapshot)
    }

    /// Where an item stands: its gallery and index; nil when it is unknown, deleted or in the Trash.
    ///
    /// - Complexity: O(log n).
    package func location(of id: OpID) -> (gallery: String, index: Int)? {
        guard let item = itemIndex(of: id), !items[Int(item)].isDeleted, !isInTrash(item) else { return nil }
        let slot = items[Int(item)].slot
        return (shownName(slots[slot].gallery), slots.visibleRank(slot))
    }

    /// The placeholders made by one replica that are neither committed nor deleted, oldest first:
    /// the transfers that replica has left to finish.
    ///
    /// - Complexity: O(n) for n items ever inserted, without building the other items.
    package func livePlaceholders(insertedBy replica: ReplicaID) -> [Item] {
        guard let index = table.index(of: replica) else { return [] }
        var result: [Item] = []
        for (position, record) in items.enumerated()
        where record.isPlaceholder && !record.isDeleted && record.key.replicaIndex == index {
            result.append(snapshot(Int32(position)))
        }
        return result.sorted { $0.id < $1.id }
    }

    /// An item, deleted or not, whose content hash is `hash`; nil when no item names those bytes.
    ///
    /// - Complexity: O(n) for n items with fields besides the title.
    package func item(withContentHash hash: String) -> Item? {
        for (item, fields) in extraFields where fields[.contentHash]?.text == hash {
            return snapshot(item)
        }
        return nil
    }

    /// A public snapshot of a stored item.
    func snapshot(_ item: Int32) -> Item {
        let record = items[Int(item)]
        var fields = extraFields[item] ?? [:]
        if let title = record.title { fields[.title] = .text(title) }
        return Item(
            id: table.unpack(record.key),
            gallery: shownName(slots[record.slot].gallery),
            state: record.isPlaceholder ? .placeholder : .ready,
            isDeleted: record.isDeleted,
            isInTrash: isInTrash(item),
            fields: fields)
    }
}
