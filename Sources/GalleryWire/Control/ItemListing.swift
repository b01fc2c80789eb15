/// One item as `list --json` prints it.
package struct ItemListing: Codable, Hashable, Sendable {
    /// The item's ID, `COUNTER@REPLICA`.
    package var id: String
    package var title: String?
    /// `ready` or `placeholder`.
    package var state: String
    /// The SHA-256 of its bytes, in hex (a stored image).
    package var hash: String?
    package var bytes: Int64?
    package var mediaType: String?
    package var aspectRatio: Double?
    /// The image's URL (an image kept by reference).
    package var url: String?
    /// Bytes done / total for a placeholder this node is filling; null otherwise.
    package var progress: Progress?
    /// In a listing of the Trash: the gallery the item left, where a restore brings it back.
    package var from: String?
    /// In a listing of the Trash: when it was moved there (Unix milliseconds), null when its
    /// gallery was deleted while it was not.
    package var trashedAt: Int64?

    /// Transfer progress of a placeholder.
    package struct Progress: Codable, Hashable, Sendable {
        package var done: Int64
        package var total: Int64

        package init(done: Int64, total: Int64) {
            self.done = done
            self.total = total
        }
    }

    package init(id: String, title: String?, state: String, hash: String?, bytes: Int64?, mediaType: String?,
                aspectRatio: Double?, url: String?, progress: Progress?) {
        self.id = id
        self.title = title
        self.state = state
        self.hash = hash
        self.bytes = bytes
        self.mediaType = mediaType
        self.aspectRatio = aspectRatio
        self.url = url
        self.progress = progress
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, state, hash, bytes, mediaType, aspectRatio, url, progress, from, trashedAt
    }

    /// Every key is written, unset ones as null, as `list --json` documents.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(state, forKey: .state)
        try container.encode(hash, forKey: .hash)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(mediaType, forKey: .mediaType)
        try container.encode(aspectRatio, forKey: .aspectRatio)
        try container.encode(url, forKey: .url)
        try container.encode(progress, forKey: .progress)
        // Only a listing of the Trash has these (`list --trash`).
        if let from {
            try container.encode(from, forKey: .from)
            try container.encode(trashedAt, forKey: .trashedAt)
        }
    }
}
