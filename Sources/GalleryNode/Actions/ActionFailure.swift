import Foundation

/// A use case (an action or a control command) that cannot be carried out, with its one-line
/// reason; it changed nothing. Every adapter shows the reason as it is (the command line's
/// `gallery -C`, later the web page).
package struct ActionFailure: Error, CustomStringConvertible, LocalizedError {
    /// The reason, one line.
    package let description: String

    package init(_ description: String) { self.description = description }

    /// The reason, as `localizedDescription` shows it.
    package var errorDescription: String? { description }
}
