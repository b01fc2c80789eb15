import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Why the op log or the blob store could not do what was asked.
package enum StorageError: Error, Hashable, Sendable, LocalizedError {
    /// A system call failed on a path; `errno` is kept for the message.
    case io(operation: String, path: String, errno: Int32)
    /// The file exists but does not start with the op log's magic: it is not ours and is left alone.
    case notAnOpLog(path: String)
    /// The op log was written by a format version this build does not read.
    case unsupportedVersion(path: String, version: UInt16)
    /// An op whose encoding exceeds the record size limit.
    case recordTooLarge(bytes: Int, limit: Int)
    /// The op log or blob writer was closed before this call.
    case closed(path: String)
    /// A string that is not 64 lowercase hex characters where a SHA-256 was expected.
    case invalidHash(String)
    /// Received bytes whose SHA-256 is not the one expected.
    case hashMismatch(expected: String, actual: String)
    /// The op files hold an op that the replica refuses: they were not written by this node.
    case unreplayableOp(path: String, op: String, reason: String)
    /// A transfer whose length differs from the one announced.
    case sizeMismatch(hash: String, expected: Int, actual: Int)
    /// A blob that the store does not hold.
    case blobNotFound(String)
    /// A read range outside a blob.
    case rangeOutOfBounds(hash: String, offset: Int, length: Int, size: Int)
    /// A second writer for a blob that is already being received.
    case transferInProgress(String)

    package var errorDescription: String? {
        switch self {
        case .io(let operation, let path, let code):
            "\(operation) failed for \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .notAnOpLog(let path):
            "\(path) is not a GallerySync op log (wrong magic); it was left untouched"
        case .unsupportedVersion(let path, let version):
            "\(path) has op log format version \(version), which this build cannot read"
        case .recordTooLarge(let bytes, let limit):
            "an op of \(bytes) bytes exceeds the record limit of \(limit) bytes"
        case .closed(let path):
            "\(path) was already closed"
        case .invalidHash(let text):
            "'\(text.prefix(80))' is not a SHA-256 (64 lowercase hex characters)"
        case .hashMismatch(let expected, let actual):
            "content hash mismatch: expected \(expected), received \(actual)"
        case .unreplayableOp(let path, let op, let reason):
            "\(path) holds op \(op), which cannot be applied: \(reason)"
        case .sizeMismatch(let hash, let expected, let actual):
            "blob \(hash) should have \(expected) bytes, received \(actual)"
        case .blobNotFound(let hash):
            "blob \(hash) is not in the store"
        case .rangeOutOfBounds(let hash, let offset, let length, let size):
            "range \(offset)+\(length) is outside blob \(hash) of \(size) bytes"
        case .transferInProgress(let hash):
            "blob \(hash) is already being received"
        }
    }
}
