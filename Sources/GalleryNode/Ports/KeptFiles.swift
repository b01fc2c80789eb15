import GalleryIO

/// A file whose bytes a node serves from where it is (`gallery add --in-place`), as it was when
/// added: what the node asks its blob store to record before inserting the item naming it.
package struct KeptFile: Hashable, Sendable {
    /// SHA-256 of its bytes, lowercase hex.
    package var hash: String
    /// Its absolute path.
    package var path: String
    /// Its size in bytes.
    package var size: Int
    /// Its modification time, nanoseconds since 1970.
    package var modified: Int64

    package init(hash: String, path: String, size: Int, modified: Int64) {
        self.hash = hash
        self.path = path
        self.size = size
        self.modified = modified
    }
}

/// A file kept in place that cannot serve its bytes (gone, or changed on disk), and why.
package struct KeptFileProblem: Hashable, Sendable {
    package var file: KeptFile
    package var reason: String

    package init(file: KeptFile, reason: String) {
        self.file = file
        self.reason = reason
    }
}

/// What a blob store does for files kept in place; a store that keeps none refuses them.
package protocol KeptFileStore {
    /// Records `files` durably (before an item names them).
    func keep(_ files: [KeptFile]) throws(StorageError)
    /// The files kept in place (how many) and those that cannot serve their bytes now, and why.
    func keptFiles() -> (count: Int, problems: [KeptFileProblem])
    /// Why no file kept in place can serve `hash` (all are gone or changed), or nil when one can
    /// or none was kept.
    func keptFileProblem(for hash: String) -> String?
}
