/// One transfer in flight as `status` shows it.
package struct TransferListing: Codable, Hashable, Sendable {
    /// The transfer's ID, which is its placeholder's item ID.
    package var transfer: String
    /// The dragged item.
    package var source: String
    /// The SHA-256 of the bytes, in hex.
    package var hash: String
    /// Bytes received and verified so far.
    package var done: Int
    /// All the bytes.
    package var total: Int
    /// Whether the source is deleted once the placeholder is committed.
    package var move: Bool
    /// `fetching from PEER`, `waiting for a peer holding the bytes`, `verifying`, ...
    package var state: String
    /// Seconds until the placeholder is deleted if the bytes have not arrived.
    package var secondsLeft: Double

    package init(transfer: String, source: String, hash: String, done: Int, total: Int, move: Bool, state: String,
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
