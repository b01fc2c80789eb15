import Foundation

/// A use case (an action or a control command) that cannot be carried out, with its one-line
/// reason; it changed nothing.
struct ActionFailure: Error, CustomStringConvertible, LocalizedError {
    let description: String

    init(_ description: String) { self.description = description }

    var errorDescription: String? { description }
}
