import Foundation

/// Why a node refused a command: one line; the command changed nothing.
package struct ControlRefusal: Error, Codable, Hashable, Sendable, LocalizedError {
    /// The one-line reason.
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var errorDescription: String? { reason }
}
