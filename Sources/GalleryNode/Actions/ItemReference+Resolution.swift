import GalleryModel
import GalleryWire

/// Resolution of an item named by ID or by place, against the replica that carries a command out.
extension ItemReference {
    /// The ID of the item named, known to `replica`; throws when there is none (an unknown ID, a
    /// gallery that does not exist, an index out of range).
    package func resolve(in replica: Replica) throws -> OpID {
        switch self {
        case .id(let id):
            guard replica.item(id) != nil else { throw ModelError.unknownItem(id) }
            return id
        case .position(let gallery, let index):
            return try replica.item(at: index, in: gallery).id
        }
    }
}

extension [ItemReference] {
    /// The IDs of the items a batch command names (`move`, `delete`, `update`), every reference
    /// resolved against the same replica, so that GALLERY:INDEX means the same listing for all.
    ///
    /// - Parameter verb: What the command does, for the refusal ("moved": "nothing was moved").
    /// - Throws: `ActionError` naming the first reference that names no item, a deleted one, or
    ///   one named before, with its place in the list when there are several: nothing is done then.
    package func resolveLive(in replica: Replica, verb: String) throws -> [OpID] {
        var ids: [OpID] = []
        ids.reserveCapacity(count)
        var seen: [OpID: Int] = [:]
        for (offset, reference) in enumerated() {
            let named = count == 1 ? "\(reference)" : "item \(offset + 1) of \(count) (\(reference))"
            let id: OpID
            do {
                id = try reference.resolve(in: replica)
            } catch {
                throw ActionError.refusedItem(named, verb: verb, because: ActionError.from(error) ?? .unknownName("\(reference)"))
            }
            guard replica.item(id)?.isDeleted == false else { throw ActionError.refusedItem(named, verb: verb, because: .itemDeleted(id)) }
            if let first = seen.updateValue(offset, forKey: id) {
                let same = reference == .id(id) ? "" : "\(id) "
                throw ActionError.refusedItem(named, verb: verb, because: .namedAlready("\(same)", asItem: first + 1))
            }
            ids.append(id)
        }
        return ids
    }
}
