/// The one path by which ops change a replica: validate everything, then mutate.
extension Replica {
    /// Applies an op whose dependencies are all applied. Throws, changing nothing, when the op
    /// cannot come from a correct replica.
    ///
    /// - Complexity: O(log n) plus the concurrent siblings scanned at the insertion point, for an
    ///   insert or move; O(1) expected for the other ops (O(log n) for a delete).
    mutating func apply(_ op: Op) throws(ModelError) {
        guard op.lastCounter <= PackedID.maxCounter else { throw .counterOverflow(op.id) }
        let known = table.index(of: op.id.replica) != nil
        guard let replicaIndex = table.register(op.id.replica) else { throw .tooManyReplicas }
        do {
            try apply(op, replicaIndex: replicaIndex)
        } catch {
            // A refused op leaves nothing behind, not even its replica in the table.
            if !known { table.unregisterLast() }
            throw error
        }
        if authenticator != nil { _ = withAuthenticator { $0.didApply(op) } }
    }

    /// Applies an op whose replica is registered; throws before any change when it is malformed.
    private mutating func apply(_ op: Op, replicaIndex: Int) throws(ModelError) {
        let key = PackedID(replicaIndex: replicaIndex, counter: op.id.counter)

        switch op.action {
        case .createGallery(let name):
            try Self.validateGalleryName(name)
            _ = gallery(named: name)

        case .insert(let name, let after, let before, let drafts):
            guard !drafts.isEmpty else { throw .emptyInsert }
            try Self.validateGalleryName(name)
            // What the op log could not decode again is refused, so that reading the log never fails.
            guard drafts.count <= OpCodec.maxItemsPerInsert else { throw .malformedOp(op.id, "more than \(OpCodec.maxItemsPerInsert) items") }
            for draft in drafts where !draft.fields.isEmpty {
                guard draft.fields[.trashed] == nil else { throw .malformedOp(op.id, "a new item in the Trash") }
                for (field, value) in draft.fields {
                    guard field.accepts(value) else { throw .malformedOp(op.id, "wrong type of value for \(field)") }
                    if let problem = OpCodec.encodingProblem(with: value) { throw .malformedOp(op.id, "\(field): \(problem)") }
                }
            }
            let existing = galleryLookup(name)
            let left = try anchor(after, in: existing, of: op)
            let right = try anchor(before, in: existing, of: op)
            let next = try existing.map { target throws(ModelError) in
                try insertionPoint(after: left, before: right, key: key, in: target, of: op)
            } ?? -1
            let target = gallery(named: name)
            var previous = left
            for (offset, draft) in drafts.enumerated() {
                let itemKey = PackedID(replicaIndex: replicaIndex, counter: op.id.counter + UInt64(offset))
                let itemIndex = Int32(items.count)
                let slot = slots.makeSlot(
                    key: itemKey, item: itemIndex, gallery: target,
                    originLeft: previous, originRight: right, visible: true)
                let title = draft.fields.isEmpty ? nil : draft.fields[.title]?.text
                items.append(ItemRecord(
                    key: itemKey, title: title, slot: slot,
                    isDeleted: false, isPlaceholder: draft.isPlaceholder))
                if draft.fields.count > (title == nil ? 0 : 1) {
                    extraFields[itemIndex] = draft.fields.filter { $0.key != .title }
                }
                // Later items of a run follow the first: no other slot can name a brand-new slot
                // as its origin, so the scan for them stops at once at the same place.
                slots.link(slot, before: next)
                table.recordSlot(slot, for: itemKey)
                previous = slot
            }

        case .move(let id, let name, let after, let before):
            try Self.validateGalleryName(name)
            let item = try knownItem(id, of: op)
            let existing = galleryLookup(name)
            let left = try anchor(after, in: existing, of: op)
            let right = try anchor(before, in: existing, of: op)
            let next = try existing.map { target throws(ModelError) in
                try insertionPoint(after: left, before: right, key: key, in: target, of: op)
            } ?? -1
            let target = gallery(named: name)
            let record = items[Int(item)]
            let newer = lamportPrecedes(slots[record.slot].key, key)
            let wins = !record.isDeleted && newer
            // An item in the Trash stays there: the move only changes where a restore brings it.
            let slot = slots.makeSlot(
                key: key, item: item, gallery: target, originLeft: left, originRight: right,
                visible: wins && !isTrashed(item))
            slots.link(slot, before: next)
            table.recordSlot(slot, for: key)
            if wins {
                slots.setVisible(record.slot, false)
                items[Int(item)].slot = slot
            } else if newer {
                // Deleted: the register still moves, so that every replica stores the same state.
                items[Int(item)].slot = slot
            }

        case .delete(let id):
            let item = try knownItem(id, of: op)
            if !items[Int(item)].isDeleted {
                items[Int(item)].isDeleted = true
                slots.setVisible(items[Int(item)].slot, false)
            }

        case .update(let id, let field, let value):
            let item = try knownItem(id, of: op)
            guard field.accepts(value) else { throw .malformedOp(op.id, "wrong type of value for \(field)") }
            if let problem = OpCodec.encodingProblem(with: value) { throw .malformedOp(op.id, "\(field): \(problem)") }
            let fieldKey = Self.fieldKey(item: item, field: field)
            let stamp = fieldStamps[fieldKey] ?? items[Int(item)].key
            if lamportPrecedes(stamp, key) {
                fieldStamps[fieldKey] = key
                setField(field, of: item, to: value)
                if field == .trashed {
                    slots.setVisible(items[Int(item)].slot, !items[Int(item)].isDeleted && value == .none)
                }
            }

        case .commit(let id):
            let item = try knownItem(id, of: op)
            items[Int(item)].isPlaceholder = false

        case .renameGallery(let name, let title):
            try Self.validateGalleryName(name)
            try Self.validateGalleryName(title)
            applyRename(name, to: title, key: key)

        case .deleteGallery(let name):
            try Self.validateGalleryName(name)
            applyGalleryDelete(name, key: key)
        }

        table.markApplied(replicaIndex, upTo: op.lastCounter)
        clock = max(clock, op.lastCounter)
        log.append(op, replicaIndex: replicaIndex)
    }

    /// The gallery of that name, created (empty) when it is new.
    mutating func gallery(named name: String) -> Int32 {
        if let index = galleryLookup(name) { return index }
        let index = slots.addGallery()
        galleryNames.append(name)
        galleryIndex[name] = index
        if !galleryRegisters.isEmpty { refreshShownGalleries() }
        return index
    }

    static func validateGalleryName(_ name: String) throws(ModelError) {
        guard !name.isEmpty, name.utf8.count <= 255 else { throw .invalidGalleryName(name) }
    }

    /// The item an op names; it must be an item (not a move's slot) known here.
    @inline(__always)
    private func knownItem(_ id: OpID, of op: Op) throws(ModelError) -> Int32 {
        guard let item = itemIndex(of: id) else { throw .malformedOp(op.id, "\(id) is not an item") }
        return item
    }

    /// The slot an op anchors to, which must be in the op's target gallery; -1 for none.
    @inline(__always)
    private func anchor(_ id: OpID?, in gallery: Int32?, of op: Op) throws(ModelError) -> Int32 {
        guard let id else { return -1 }
        guard let slot = table.slot(for: id) else { throw .malformedOp(op.id, "anchor \(id) is not a slot") }
        guard slots[slot].gallery == gallery else {
            throw .malformedOp(op.id, "anchor \(id) is in another gallery")
        }
        return slot
    }

    /// Where a new slot with origins `left` and `right` goes: the slot it is linked before
    /// (-1: the end). This is the FugueMax integration in its list form (YjsMod): concurrent
    /// siblings with the same origins are ordered by replica ID, and a sibling's subtree is skipped
    /// whole, which is what keeps concurrent runs from interleaving.
    ///
    /// - Complexity: O(1) amortized when nothing concurrent stands between the origins; otherwise
    ///   O(log n) per concurrent slot scanned.
    private func insertionPoint(
        after left: Int32, before right: Int32, key: PackedID, in gallery: Int32, of op: Op
    ) throws(ModelError) -> Int32 {
        var current = left < 0 ? slots.first(gallery) : slots.successor(left)
        if current == right { return right }

        let leftRank = left < 0 ? -1 : slots.totalRank(left)
        let end = slots.totalCount(gallery)
        let rightRank = right < 0 ? end : slots.totalRank(right)
        guard leftRank < rightRank else { throw .malformedOp(op.id, "anchors out of order") }

        var destination = current
        var scanning = false
        while true {
            if !scanning { destination = current }
            if current < 0 || current == right { break }
            let other = slots[current]
            if other.originLeft == left {
                if other.originRight == right {
                    if siblingPrecedes(key, other.key) { break }
                    scanning = false
                } else {
                    let otherRightRank = other.originRight < 0 ? end : slots.totalRank(other.originRight)
                    scanning = otherRightRank < rightRank
                }
            } else {
                let otherLeftRank = other.originLeft < 0 ? -1 : slots.totalRank(other.originLeft)
                if otherLeftRank < leftRank { break }
            }
            current = slots.successor(current)
        }
        return destination
    }

    /// The order of concurrent sibling slots with the same origins: replica ID, then counter.
    private func siblingPrecedes(_ a: PackedID, _ b: PackedID) -> Bool {
        let replicaA = table.ids[a.replicaIndex]
        let replicaB = table.ids[b.replicaIndex]
        return replicaA != replicaB ? replicaA < replicaB : a.counter < b.counter
    }

    private mutating func setField(_ field: ItemField, of item: Int32, to value: FieldValue) {
        if field == .title {
            items[Int(item)].title = value.text
            return
        }
        var fields = extraFields.removeValue(forKey: item) ?? [:]
        fields[field] = value == .none ? nil : value
        if !fields.isEmpty { extraFields[item] = fields }
    }
}
