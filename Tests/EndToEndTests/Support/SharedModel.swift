import Synchronization

/// A `ModelNode` shared between a test and the workload thread that feeds it.
final class SharedModel: Sendable {
    private let model: Mutex<ModelNode>

    init(_ model: ModelNode) {
        self.model = Mutex(model)
    }

    /// Runs `body` with the model, exclusively.
    func withLock<Result>(_ body: (inout ModelNode) throws -> Result) rethrows -> Result {
        try model.withLock { try body(&$0) }
    }
}
