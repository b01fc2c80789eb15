import Foundation

/// Why a schedule could not be replayed. The message is one line and names the step (from 1).
package enum SimulationError: Error, Hashable, Sendable, LocalizedError {
    /// The file is not JSON, or not an object with `replicas` and `steps`.
    case malformedSchedule(String)
    /// A step is malformed or cannot be carried out.
    case step(Int, String)

    package var errorDescription: String? {
        switch self {
        case .malformedSchedule(let reason): "malformed schedule: \(reason)"
        case .step(let number, let reason): "step \(number): \(reason)"
        }
    }
}
