import Foundation

/// Ends a command with a one-line message and an exit code.
struct CommandFailure: Error, LocalizedError {
    let code: ExitCode
    let message: String
    /// The usage text to print after the message, for usage errors.
    let usage: String?

    static func usage(_ message: String, _ usage: String) -> CommandFailure {
        CommandFailure(code: .usage, message: message, usage: usage)
    }

    static func failed(_ message: String) -> CommandFailure {
        CommandFailure(code: .failure, message: message, usage: nil)
    }

    var errorDescription: String? { message }
}
