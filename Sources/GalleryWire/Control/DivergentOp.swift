/// An op received under an ID that this node holds with other content (`status`).
package struct DivergentOp: Codable, Hashable, Sendable {
    /// How many a node keeps for `status` (the most recent).
    package static let kept = 20

    /// The op ID, `COUNTER@REPLICA`.
    package var id: String
    /// The peer that sent it.
    package var peer: String
    /// What the received op does.
    package var received: String
    /// What the op held here does, or nil when no op of that replica starts at that counter.
    package var held: String?

    package init(id: String, peer: String, received: String, held: String?) {
        self.id = id
        self.peer = peer
        self.received = received
        self.held = held
    }
}
