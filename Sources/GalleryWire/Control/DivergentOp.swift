/// An op received under an ID that this node holds with other content (`status`).
public struct DivergentOp: Codable, Hashable, Sendable {
    /// How many a node keeps for `status` (the most recent).
    package static let kept = 20

    /// The op ID, `COUNTER@REPLICA`.
    public var id: String
    /// The peer that sent it.
    public var peer: String
    /// What the received op does.
    public var received: String
    /// What the op held here does, or nil when no op of that replica starts at that counter.
    public var held: String?

    /// Creates a value with every field given.
    public init(
        id: String, peer: String, received: String, held: String? = nil
    ) {
        self.id = id
        self.peer = peer
        self.received = received
        self.held = held
    }
}
