import Foundation

/// Why an image could not be decoded, scaled or encoded: every hostile or damaged input ends here,
/// never in a trap.
package enum ImageError: Error, Equatable, LocalizedError {
    /// The bytes are not a format this module reads.
    case unrecognizedFormat
    /// The data ends before the structure it declares.
    case truncated(String)
    /// A structure is malformed (a bad table, marker, chunk or code).
    case malformed(String)
    /// The format is recognized but this variant is not supported.
    case unsupported(String)
    /// The declared size or the work needed exceeds the stated bound.
    case tooLarge(String)

    package var errorDescription: String? {
        switch self {
        case .unrecognizedFormat: "not a JPEG, PNG or GIF image"
        case .truncated(let what): "truncated image: \(what)"
        case .malformed(let what): "malformed image: \(what)"
        case .unsupported(let what): "unsupported image: \(what)"
        case .tooLarge(let what): "image too large: \(what)"
        }
    }
}
