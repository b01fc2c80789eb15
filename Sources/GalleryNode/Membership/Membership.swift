import GalleryCrypto
import GalleryModel
import GalleryWire
import Synchronization

/// A space's membership as one node holds it (protocol.md, "Membership"): the space's keys, the
/// signed member records, and the invitations this node made. Thread-safe: handshakes read the
/// keys on the connections' loops (`HandshakeKeyring`), commands and sessions change them.
///
/// Every change is saved (`MembershipStore`) before it takes effect for anyone else: an
/// invitation is spent on disk before its grant is sent, a new key is stored before it is sent.
package final class Membership: HandshakeKeyring {
    private struct State {
        var keys: SpaceKeys
        var records: [MemberRecord]
        var invitations: [PendingInvitation]
    }

    /// How long a spent or expired invitation is kept (so that its reuse gets a clear refusal).
    static let keptAfterExpiry: UInt64 = 24 * 3_600_000
    /// The most invitations kept, pending or not.
    static let maximumInvitations = 64
    /// The longest an invitation may run, in seconds (a week).
    package static let maximumLifetime: UInt64 = 7 * 24 * 3_600

    private let state: Mutex<State>
    private let store: (any MembershipStore)?
    /// This node's static key and signing key.
    package let nodeKey: [UInt8]
    let signingKey: Ed25519.PrivateKey

    /// Membership as loaded from `store`'s files.
    package init(keys: SpaceKeys, records: [MemberRecord], invitations: [PendingInvitation],
                 staticKey: X25519.PrivateKey, store: (any MembershipStore)?) {
        state = Mutex(State(keys: keys, records: [], invitations: invitations))
        self.store = store
        nodeKey = staticKey.publicKey.rawRepresentation
        signingKey = OpSigning.signingKey(fromNodeKey: staticKey)
        _ = merge(records, saving: false)
    }

    // MARK: Keys

    /// The space's keys now.
    package var keys: SpaceKeys { state.withLock { $0.keys } }

    package var dialingKey: [UInt8] { HandshakeSettings.presharedKey(secret: keys.secret) }

    package var acceptedKeys: [(HandshakeAuthority, [UInt8])] {
        let (keys, invitations) = state.withLock { ($0.keys, $0.invitations) }
        var accepted: [(HandshakeAuthority, [UInt8])] = [(.space, HandshakeSettings.presharedKey(secret: keys.secret))]
        if let previous = keys.previous { accepted.append((.previousSpace, HandshakeSettings.presharedKey(secret: previous))) }
        for invitation in invitations {
            accepted.append((.invitation(invitation.id), InvitationCode.presharedKey(secret: invitation.secret)))
        }
        return accepted
    }

    /// Takes `secret` of `generation` when it replaces the current one (a later generation, or the
    /// tie's winner); the current one becomes the previous. Returns whether it was taken.
    package func adopt(secret: [UInt8], generation: UInt64) throws -> Bool {
        let keys: SpaceKeys? = state.withLock { state in
            guard state.keys.isReplaced(by: secret, generation: generation) else { return nil }
            return SpaceKeys(secret: secret, generation: generation, previous: state.keys.secret, space: state.keys.space)
        }
        guard let keys else { return false }
        try store?.save(keys: keys)
        state.withLock { $0.keys = keys }
        return true
    }

    /// Replaces the space's secret with 32 new random bytes (a revocation): stored, then in effect.
    func rotate() throws -> SpaceKeys {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let current = keys
        let keys = SpaceKeys(secret: secret, generation: current.generation + 1, previous: current.secret, space: current.space)
        try store?.save(keys: keys)
        state.withLock { $0.keys = keys }
        return keys
    }

    // MARK: Records (Membership+Records)

    var recordsNow: [MemberRecord] { state.withLock { $0.records } }

    func withRecords<T>(_ body: (inout [MemberRecord]) -> T) -> T {
        state.withLock { body(&$0.records) }
    }

    func storeRecords(_ records: [MemberRecord]) throws {
        try store?.save(records: records)
    }

    // MARK: Invitations

    /// Makes and stores an invitation valid `seconds` from `now` (milliseconds since 1970).
    package func invite(seconds: UInt64, now: UInt64) throws -> PendingInvitation {
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<InvitationCode.secretLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let invitation = PendingInvitation(secret: secret, created: now, expires: now + min(seconds, Self.maximumLifetime) * 1_000)
        let invitations = state.withLock { state in
            state.invitations.removeAll { $0.expires + Self.keptAfterExpiry < now }
            state.invitations.append(invitation)
            if state.invitations.count > Self.maximumInvitations {
                state.invitations.removeFirst(state.invitations.count - Self.maximumInvitations)
            }
            return state.invitations
        }
        try store?.save(invitations: invitations)
        return invitation
    }

    /// Why an invitation cannot be used.
    package enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        case unknown
        case used(by: String, at: UInt64)
        case expired(at: UInt64)

        package var description: String {
            switch self {
            case .unknown: "no such invitation"
            case .used(let node, let at): "this invitation was used already (by node \(node) at \(Timestamp.text(at)))"
            case .expired(let at): "this invitation expired at \(Timestamp.text(at))"
            }
        }
    }

    /// Whether invitation `id` can be used at `now`.
    package func check(invitation id: String, now: UInt64) -> Refusal? {
        state.withLock { state in
            guard let invitation = state.invitations.first(where: { $0.id == id }) else { return .unknown }
            if let node = invitation.usedBy { return .used(by: node, at: invitation.usedAt ?? 0) }
            if invitation.expires <= now { return .expired(at: invitation.expires) }
            return nil
        }
    }

    /// Spends invitation `id` for `node` at `now`, on disk first: used once, never again.
    package func redeem(invitation id: String, by node: NodeID, now: UInt64) throws -> Refusal? {
        let outcome: Result<[PendingInvitation], Refusal> = state.withLock { state in
            guard let index = state.invitations.firstIndex(where: { $0.id == id }) else { return .failure(.unknown) }
            let invitation = state.invitations[index]
            if let used = invitation.usedBy { return .failure(.used(by: used, at: invitation.usedAt ?? 0)) }
            if invitation.expires <= now { return .failure(.expired(at: invitation.expires)) }
            state.invitations[index].usedBy = node.rawValue
            state.invitations[index].usedAt = now
            return .success(state.invitations)
        }
        switch outcome {
        case .failure(let refusal): return refusal
        case .success(let invitations):
            try store?.save(invitations: invitations)
            return nil
        }
    }

    /// The invitations kept.
    package var invitations: [PendingInvitation] { state.withLock { $0.invitations } }
}
