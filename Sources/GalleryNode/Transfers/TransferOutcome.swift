/// How a transfer ended.
package enum TransferOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The bytes arrived and verified; the placeholder was committed where it stood.
    case committed
    /// The placeholder was deleted (or already was), for the reason given; the source is untouched.
    case failed(String)

    /// `committed`, or `failed: REASON`.
    package var description: String {
        switch self {
        case .committed: "committed"
        case .failed(let reason): "failed: \(reason)"
        }
    }
}
