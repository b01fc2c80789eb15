/// One image that `add` adds: a file stored as a blob, or a URL kept by reference.
///
/// In JSON: `{"file": "/absolute/path"}` or `{"url": "https://..."}`.
public enum AddSource: Hashable, Sendable, Codable {
    /// An absolute path of an image file (PNG, JPEG or GIF) on the node's machine: the command line
    /// and the node share the machine and DIR, and the node runs as the command line's user.
    case file(String)
    /// A URL, kept by reference.
    case url(String)

    /// A URL when `text` contains `://`, else a file (the command line makes it absolute).
    public init(_ text: String) {
        self = text.contains("://") ? .url(text) : .file(text)
    }
}
