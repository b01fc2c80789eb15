/// Where the address book learned an address (`peers` shows it).
package enum AddressSource: String, Codable, Hashable, Sendable, CaseIterable {
    /// `gallery serve --peer`.
    case peer = "--peer"
    /// `gallery -C DIR connect`.
    case connect
    /// The peer itself said it listens there (`addresses` frame, right after the handshake).
    case announce
    /// Another member said the peer listens there.
    case gossip

    /// How much the address is worth keeping: addresses the user gave outrank announced ones,
    /// which outrank gossip; a full list drops the lowest first.
    var rank: Int {
        switch self {
        case .peer, .connect: 2
        case .announce: 1
        case .gossip: 0
        }
    }
}
