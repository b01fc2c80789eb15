/// One operation of the log: the only way the state of a space changes.
///
/// Every op carries its own ID and the counter of the previous op of the same replica, so that a
/// replica applies each replica's ops in order and a version vector describes exactly what it has.
/// The other dependencies of an op are the IDs it references (`dependencies`): an op is applied only
/// after all of them.
package struct Op: Hashable, Sendable {
    /// The op's ID. An `insert` of `n` items uses the `n` counters starting here, one per item.
    package var id: OpID
    /// The counter of the previous op made by `id.replica`, or 0 when this is its first op.
    package var previous: UInt64
    /// What the op does.
    package var action: Action
    /// Its author's signature and key claim, when it carries them (`OpSeal`); nil for ops made
    /// before ops were signed and for ops another op's signature covers.
    package var seal: OpSeal?

    /// Creates an op.
    package init(id: OpID, previous: UInt64, action: Action) {
        self.id = id
        self.previous = previous
        self.action = action
        self.seal = nil
    }

    /// What an op does.
    package enum Action: Hashable, Sendable {
        /// Creates the gallery of that name; concurrent creations of one name make one gallery.
        case createGallery(name: String)
        /// Inserts a contiguous run of items into a gallery, between two adjacent slots
        /// (`after`/`before`, nil for the start/end of the gallery) as the creating replica saw them.
        case insert(gallery: String, after: OpID?, before: OpID?, items: [ItemDraft])
        /// Moves an item to a new slot between two adjacent slots of a gallery (any gallery).
        case move(item: OpID, gallery: String, after: OpID?, before: OpID?)
        /// Deletes an item, finally: nothing resurrects it.
        case delete(item: OpID)
        /// Sets one field of an item (last writer wins per field).
        case update(item: OpID, field: ItemField, value: FieldValue)
        /// Turns a placeholder into a ready item.
        case commit(item: OpID)
        /// Gives the gallery whose identity is `name` the name `to` people see (last writer wins by
        /// op ID, per gallery), and brings it back if it was deleted (the same register as
        /// `deleteGallery`'s, last writer wins).
        case renameGallery(name: String, to: String)
        /// Deletes the gallery whose identity is `name`: it is no longer shown, and its items are
        /// in the Trash (docs/design.md, "Trash"). A later `renameGallery` brings it back.
        case deleteGallery(name: String)
    }

    /// How many counters the op uses: the number of items of an insert, else 1.
    package var span: Int {
        if case .insert(_, _, _, let items) = action { return items.count }
        return 1
    }

    /// The last counter the op uses (the first for an insert of no items), or `UInt64.max` when
    /// that would pass 2^64 - 1: a received counter is any 64-bit value, and such an op must be
    /// refused (its counter is beyond 2^48), not trap.
    package var lastCounter: UInt64 {
        let (last, overflow) = id.counter.addingReportingOverflow(UInt64(max(span, 1)) - 1)
        return overflow ? .max : last
    }

    /// The first op this op depends on whose counter is not smaller than its own, if any. A correct
    /// replica gives each op a counter above every counter it has applied (protocol.md, "Identifiers"),
    /// and can only depend on ops it applied, so an op with such a dependency is malformed.
    /// Allocation-free: it runs for every op received.
    package var dependencyNotOlder: OpID? {
        func notOlder(_ id: OpID?) -> Bool { id.map { $0.counter >= self.id.counter } ?? false }
        switch action {
        case .createGallery, .renameGallery, .deleteGallery:
            return nil
        case .insert(_, let after, let before, _):
            return notOlder(after) ? after : notOlder(before) ? before : nil
        case .move(let item, _, let after, let before):
            return notOlder(item) ? item : notOlder(after) ? after : notOlder(before) ? before : nil
        case .delete(let item), .update(let item, _, _), .commit(let item):
            return notOlder(item) ? item : nil
        }
    }

    /// The IDs of the other ops this op references and must be applied after (besides `previous`).
    package var dependencies: [OpID] {
        switch action {
        case .createGallery, .renameGallery, .deleteGallery:
            return []
        case .insert(_, let after, let before, _):
            return [after, before].compactMap { $0 }
        case .move(let item, _, let after, let before):
            return [item] + [after, before].compactMap { $0 }
        case .delete(let item), .update(let item, _, _), .commit(let item):
            return [item]
        }
    }
}
