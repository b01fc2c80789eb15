import GalleryWire

/// Where a node keeps its membership across restarts (`GalleryHost`'s `MembershipFiles`: `DIR/secret`,
/// `DIR/space`, `DIR/members`, `DIR/invitations`, every one mode 0600).
package protocol MembershipStore: Sendable {
    /// Replaces the stored space keys (the current secret, its generation, the previous secret).
    func save(keys: SpaceKeys) throws
    /// Replaces the stored member records.
    func save(records: [MemberRecord]) throws
    /// Replaces the stored invitations.
    func save(invitations: [PendingInvitation]) throws
}

/// A space's keys as a node holds them (protocol.md, "Key rotation").
package struct SpaceKeys: Hashable, Sendable {
    /// The current secret: its PSK is what handshakes prove.
    package var secret: [UInt8]
    /// How many times the secret was replaced since the space was made (0: its first).
    package var generation: UInt64
    /// The secret before the last replacement: accepted from members that missed the new one.
    package var previous: [UInt8]?
    /// The space ID, the first secret's (it survives every replacement).
    package var space: [UInt8]

    package init(secret: [UInt8], generation: UInt64, previous: [UInt8]?, space: [UInt8]) {
        self.secret = secret
        self.generation = generation
        self.previous = previous
        self.space = space
    }

    /// Whether a secret offered at `generation` replaces this one: a later generation does; of
    /// two secrets of one generation (two revocations at once), the one with the greater SHA-256
    /// does, so that every node ends with the same.
    package func isReplaced(by other: [UInt8], generation newGeneration: UInt64) -> Bool {
        if newGeneration != generation { return newGeneration > generation }
        return other != secret && SHA256Order.greater(other, than: secret)
    }
}

/// An invitation this node made (`gallery invite`), pending, spent or expired.
package struct PendingInvitation: Hashable, Sendable {
    /// The one-time secret.
    package var secret: [UInt8]
    /// When it was made and when it expires, in milliseconds since 1970.
    package var created: UInt64
    package var expires: UInt64
    /// The node that used it (its node ID), once used.
    package var usedBy: String?
    package var usedAt: UInt64?

    package init(secret: [UInt8], created: UInt64, expires: UInt64, usedBy: String? = nil, usedAt: UInt64? = nil) {
        self.secret = secret
        self.created = created
        self.expires = expires
        self.usedBy = usedBy
        self.usedAt = usedAt
    }

    /// Its ID (`InvitationCode.id`).
    package var id: String { InvitationCode.id(ofSecret: secret) }
}
