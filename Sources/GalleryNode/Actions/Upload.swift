import GalleryModel

/// Files dropped from another app (the desktop, a file manager) and sent by an adapter: one
/// placeholder per file first, at the drop index as one run, so that the drop shows at once; then,
/// per file, once the adapter has stored the bytes in the blob store, the placeholder gets their
/// hash, size, media type and aspect ratio and is committed where it stands, in one batch; or it
/// is deleted (the adapter says why).
///
/// The placeholders name no hash until they commit: the transfer manager leaves them alone
/// (they are not transfers of bytes held by a peer).
package enum Upload {
    /// One file announced by the adapter.
    package struct File: Sendable {
        /// Its name, the item's title.
        package var name: String
        /// Its declared size in bytes.
        package var size: Int
        /// Its declared media type.
        package var mediaType: String

        package init(name: String, size: Int, mediaType: String) {
            self.name = name
            self.size = size
            self.mediaType = mediaType
        }
    }

    /// The media types taken.
    package static let imageTypes: Set<String> = ["image/png", "image/jpeg", "image/gif"]
    /// The largest file taken: 4 GiB.
    package static let maximumSize = 4 << 30

    /// Why a file cannot be uploaded, or nil.
    package static func problem(with file: File) -> ActionError? {
        guard imageTypes.contains(file.mediaType) else { return .notAnImage(file.name) }
        guard file.size >= 0, file.size <= maximumSize else { return .tooLarge(file.name) }
        return nil
    }

    /// Inserts one placeholder per file (title = file name) as one run at `index` of `gallery`
    /// (appended when nil); returns their IDs, in order. All or nothing.
    package static func begin(_ files: [File], into gallery: String, at index: Int?, on node: SyncNode) throws -> [OpID] {
        guard !files.isEmpty else { throw ActionError.nothingNamed(command: "an upload", what: "file") }
        if let problem = files.lazy.compactMap(problem(with:)).first { throw problem }
        let drafts = files.map { file in
            ItemDraft(isPlaceholder: true, fields: [
                .title: .text(FieldLimits.truncatedTitle(file.name)), .byteSize: .integer(Int64(file.size)),
                .mediaType: .text(file.mediaType),
            ])
        }
        let ops = try node.perform { replica in
            try replica.insertRun(drafts, into: gallery, at: index ?? replica.count(in: gallery))
        }
        return (0..<drafts.count).map { ops[0].id.advanced(by: $0) }
    }

    /// Gives the placeholder its stored bytes (hash, size, the header's media type and aspect ratio)
    /// and commits it where it stands, in one batch.
    ///
    /// - Throws: `ActionError` when the placeholder was deleted or committed meanwhile.
    package static func finish(_ placeholder: OpID, hash: String, size: Int, header: ImageHeader, on node: SyncNode) throws {
        try node.perform { replica in
            guard let item = replica.item(placeholder), !item.isDeleted, item.state == .placeholder else {
                throw ActionError.placeholderGone(placeholder)
            }
            let aspect = FieldLimits.problem(with: .number(header.aspectRatio), for: .aspectRatio) == nil ? header.aspectRatio : 1
            try replica.update(placeholder, .contentHash, to: .text(hash))
            try replica.update(placeholder, .byteSize, to: .integer(Int64(size)))
            try replica.update(placeholder, .mediaType, to: .text(header.mediaType))
            try replica.update(placeholder, .aspectRatio, to: .number(aspect))
            try replica.commit(placeholder)
        }
    }

    /// Deletes the placeholders of uploads a previous run of this node never finished (its own live
    /// placeholders that name no bytes: only uploads make those) and returns them; their bytes
    /// were lost with the connection that carried them.
    package static func abandonUnfinished(on node: SyncNode) throws -> [OpID] {
        try node.perform { replica in
            let orphans = replica.livePlaceholders(insertedBy: replica.id).filter { $0.contentHash == nil }.map(\.id)
            for id in orphans { try replica.delete(id) }
            return orphans
        }
    }

    /// Deletes the placeholder of an upload that failed or was abandoned (nothing when it is gone
    /// already).
    package static func abandon(_ placeholder: OpID, on node: SyncNode) throws {
        try node.perform { replica in
            guard let item = replica.item(placeholder), !item.isDeleted, item.state == .placeholder else { return }
            try replica.delete(placeholder)
        }
    }
}
