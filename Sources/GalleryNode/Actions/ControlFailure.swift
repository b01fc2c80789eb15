import Foundation

/// A command that cannot be carried out, with its one-line reason (shown by every adapter: the
/// command line's `gallery -C`, later the web page).
package struct ControlFailure: Error, CustomStringConvertible, LocalizedError {
    /// The reason, one line.
    package let description: String

    package init(_ description: String) { self.description = description }

    /// The reason, as `localizedDescription` shows it.
    package var errorDescription: String? { description }
}
