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
