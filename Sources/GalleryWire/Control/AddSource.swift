import Foundation

/// One image that `add` adds: a file stored as a blob, a blob already stored, or a URL kept by
/// reference.
///
/// In JSON: `{"file": "/absolute/path"}`, `{"blob": HASH, "name": NAME}`, `{"inPlace": PATH, "hash": HASH,
/// "size": N, "modified": NS}` or `{"url": "https://..."}`.
package enum AddSource: Hashable, Sendable {
    /// An absolute path of an image file (PNG, JPEG or GIF) on the node's machine: the command line
    /// and the node share the machine and DIR, and the node runs as the command line's user.
    case file(String)
    /// A URL, kept by reference.
    case url(String)
    /// A blob the node's store already holds (SHA-256, lowercase hex), stored there by the command
    /// line (`gallery add`: hashed and stored in parallel before the one command), with the name
    /// of the file it came from (the item's title). The node reads its header from the store.
    case blob(hash: String, name: String)
    /// A file kept where it is (`gallery add --in-place`): no copy in the blob store; the node
    /// records its path, size, modification time (nanoseconds since 1970) and the SHA-256 the
    /// command line found, checks that the file still has that size and time, and reads its
    /// header there. Every later read of its bytes is checked against the hash.
    case inPlace(path: String, hash: String, size: Int, modified: Int64)

    /// A URL when `text` contains `://`, else a file (the command line makes it absolute).
    package init(_ text: String) {
        self = text.contains("://") ? .url(text) : .file(text)
    }
}

extension AddSource: Codable {
    private enum Key: String, CodingKey {
        case file, url, blob, name, inPlace, hash, size, modified
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let path = try container.decodeIfPresent(String.self, forKey: .file) {
            self = .file(path)
        } else if let url = try container.decodeIfPresent(String.self, forKey: .url) {
            self = .url(url)
        } else if let path = try container.decodeIfPresent(String.self, forKey: .inPlace) {
            self = .inPlace(
                path: path, hash: try container.decode(String.self, forKey: .hash), size: try container.decode(Int.self, forKey: .size),
                modified: try container.decode(Int64.self, forKey: .modified))
        } else if let hash = try container.decodeIfPresent(String.self, forKey: .blob) {
            self = .blob(hash: hash, name: try container.decode(String.self, forKey: .name))
        } else {
            throw Swift.DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath,
                debugDescription: "a source is {\"file\": PATH}, {\"blob\": HASH, \"name\": NAME}, {\"inPlace\": PATH, ...} or {\"url\": URL}"))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .file(let path): try container.encode(path, forKey: .file)
        case .url(let url): try container.encode(url, forKey: .url)
        case .blob(let hash, let name):
            try container.encode(hash, forKey: .blob)
            try container.encode(name, forKey: .name)
        case .inPlace(let path, let hash, let size, let modified):
            try container.encode(path, forKey: .inPlace)
            try container.encode(hash, forKey: .hash)
            try container.encode(size, forKey: .size)
            try container.encode(modified, forKey: .modified)
        }
    }
}
