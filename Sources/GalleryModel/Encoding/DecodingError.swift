import Foundation

/// Why bytes could not be decoded as ops. Decoding stops at the first problem.
package enum DecodingError: Error, Hashable, Sendable, LocalizedError {
    /// The input ends in the middle of a value.
    case truncated
    /// A varint is longer than 10 bytes, overflows 64 bits, or is not in its shortest form.
    case invalidVarint
    /// A string is not valid UTF-8.
    case invalidUTF8
    /// A count or length exceeds its limit.
    case limitExceeded
    /// An op kind, field, value tag or reference tag that this version does not know.
    case unknownTag(String, UInt8)
    /// A value that is well-formed but not allowed (a zero counter, an empty insert, ...).
    case invalidValue(String)
    /// Bytes remain after the last value.
    case trailingBytes(Int)
    /// A well-formed op outside the bounds of `FieldLimits` (a title too long, too many items, ...).
    case outOfBounds(String)

    package var errorDescription: String? {
        switch self {
        case .truncated: "input ends in the middle of a value"
        case .invalidVarint: "invalid varint"
        case .invalidUTF8: "string is not valid UTF-8"
        case .limitExceeded: "count or length over its limit"
        case .unknownTag(let what, let tag): "unknown \(what) \(tag)"
        case .invalidValue(let what): "invalid \(what)"
        case .trailingBytes(let count): "\(count) bytes after the last value"
        case .outOfBounds(let reason): reason
        }
    }
}
