import GalleryModel
import GalleryNode
import GalleryStorage

/// The node directory's op log as the node's `OpStore`: each batch of the group commit is one
/// append and one fsync of the record log (`NodeStorage.persist`); a checkpoint is requested once
/// enough ops came since the last.
struct DirectoryOpStore: OpStore {
    let storage: NodeStorage
    let checkpoints: CheckpointPolicy
    let checkpointer: Checkpointer

    func store(_ ops: [Op]) throws {
        try storage.persist(ops)
        if storage.opsSinceCheckpoint >= checkpoints.every { checkpointer.request() }
    }
}
