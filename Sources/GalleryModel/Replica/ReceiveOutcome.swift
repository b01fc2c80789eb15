/// What happened to an op handed to `Replica.receive(_:)`.
package enum ReceiveOutcome: Hashable, Sendable {
    /// The op was applied, and with it `released` ops that had been waiting for it.
    case applied(released: Int)
    /// The op had already been applied or is already held; nothing changed.
    case duplicate
    /// The op waits in the buffer for the op with this ID.
    case buffered(waitingFor: OpID)
    /// The op was refused; nothing changed.
    case rejected(ModelError)
}
