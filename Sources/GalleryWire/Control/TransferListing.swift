/// One transfer in flight as `status` shows it.
public struct TransferListing: Codable, Hashable, Sendable {
    /// The transfer's ID, which is its placeholder's item ID.
    public var transfer: String
    /// The dragged item.
    public var source: String
    /// The SHA-256 of the bytes, in hex.
    public var hash: String
    /// Bytes received and verified so far.
    public var done: Int
    /// All the bytes.
    public var total: Int
    /// Whether the source is deleted once the placeholder is committed.
    public var move: Bool
    /// `fetching from PEER`, `waiting for a peer holding the bytes`, `verifying`, ...
    public var state: String
    /// Seconds until the placeholder is deleted if the bytes have not arrived.
    public var secondsLeft: Double

    public init(transfer: String, source: String, hash: String, done: Int, total: Int, move: Bool, state: String,
                secondsLeft: Double) {
        self.transfer = transfer
        self.source = source
        self.hash = hash
        self.done = done
        self.total = total
        self.move = move
        self.state = state
        self.secondsLeft = secondsLeft
    }
}
