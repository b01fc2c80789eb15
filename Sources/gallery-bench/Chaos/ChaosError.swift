import Foundation

/// Why a chaos run could not run at all (as opposed to the violations it found).
enum ChaosError: Error, LocalizedError {
    /// Bad arguments: the message is printed with the usage, exit 64.
    case usage(String)
    /// The nodes could not be set up or restarted (not a finding about the product), exit 1.
    case setup(String)

    var errorDescription: String? {
        switch self {
        case .usage(let message), .setup(let message): message
        }
    }
}
