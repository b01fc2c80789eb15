import Foundation

/// Why a node refused a command: one line; the command changed nothing.
public struct ControlRefusal: Error, Codable, Hashable, Sendable, LocalizedError {
    /// The one-line reason.
    public var reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var errorDescription: String? { reason }
}
