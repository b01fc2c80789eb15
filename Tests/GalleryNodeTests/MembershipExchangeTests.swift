import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
@testable import GalleryNode
import GalleryWire
import Synchronization
import Testing

/// The membership component alone (`MembershipExchange`), without a node: revocation's choices
/// and refusals, invitations' addresses, and the ops of revoked members.
@Suite struct MembershipExchangeTests {
    static let secret = Array("exchange".utf8)

    /// A member `alice` that knows `bob` (and a second node called `bob` when `twoBobs`).
    private static func exchange(twoBobs: Bool = false) -> (MembershipExchange, lines: RecordedLines, bob: MemberRecord) {
        let alice = X25519.PrivateKey(), bob = X25519.PrivateKey()
        let membership = Membership(
            keys: SpaceKeys(secret: secret, generation: 0, previous: nil, space: OpSigning.spaceID(ofSecret: secret)),
            records: [], invitations: [], staticKey: alice, store: nil)
        membership.registerSelf(name: "alice", now: 1)
        let signing = OpSigning.signingKey(fromNodeKey: alice)
        let bobRecord = MemberRecord(kind: .added, nodeKey: bob.publicKey.rawRepresentation,
                                     signingKey: OpSigning.signingKey(fromNodeKey: bob).publicKey.rawRepresentation, name: "bob", at: 2)
            .signed(by: signing)
        var records = [bobRecord]
        if twoBobs {
            let other = X25519.PrivateKey()
            records.append(MemberRecord(kind: .added, nodeKey: other.publicKey.rawRepresentation,
                                        signingKey: OpSigning.signingKey(fromNodeKey: other).publicKey.rawRepresentation, name: "bob", at: 3)
                .signed(by: signing))
        }
        _ = membership.merge(records, saving: false)
        let lines = RecordedLines()
        return (MembershipExchange(membership: membership, node: "alice", log: lines.log), lines, bobRecord)
    }

    @Test func revokingAMemberMakesItsRecordWithCutoffsAndANewKey() throws {
        let (exchange, lines, bob) = Self.exchange()
        var askedKey: [UInt8]?
        let result = exchange.revoke("bob") { key in
            askedKey = key
            return [ReplicaID(7): 42]
        }
        let revoked = try result.get()
        #expect(askedKey == bob.signingKey)
        #expect(revoked.record.kind == .revoked && revoked.record.nodeKey == bob.nodeKey)
        #expect(revoked.record.cutoffs == [ReplicaID(7): 42])
        #expect(revoked.listing.name == "bob")
        #expect(exchange.membership.keys.generation == 1)
        #expect(exchange.membership.isRevoked(nodeKey: bob.nodeKey))
        #expect(lines.all.last?.hasPrefix("alice: REVOKED bob [") == true)
        let applied = exchange.apply(.merge([revoked.record], from: 3), connections: []) { _ in true }
        #expect(applied.revoked.isEmpty && !applied.changed, "a record held already changes nothing")
    }

    @Test func revocationRefusals() {
        let (exchange, _, bob) = Self.exchange()
        #expect(exchange.revoke("carol") { _ in [:] }.failure == .unknownMember("carol"))
        #expect(exchange.revoke("alice") { _ in [:] }.failure == .revokingItself)
        #expect(exchange.revoke(bob.nodeID?.rawValue ?? "") { _ in [:] }.failure == nil)
        #expect(exchange.revoke("bob") { _ in [:] }.failure == .alreadyRevoked("bob"))
        #expect(exchange.membership.keys.generation == 1, "a refusal rotates nothing")
        let (twoBobs, _, _) = Self.exchange(twoBobs: true)
        #expect(twoBobs.revoke("bob") { _ in [:] }.failure == .ambiguous("bob"))
    }

    @Test func anInvitationNamesWhereThisNodeListens() throws {
        let (exchange, _, _) = Self.exchange()
        #expect(throws: MembershipFailure.notListening) { try exchange.invite(seconds: 60, announced: []) }
        let code = try exchange.invite(seconds: 60, announced: [Endpoint(host: "127.0.0.1", port: 7000), Endpoint(host: "0.0.0.0", port: 7001)])
        #expect(code.addresses.first == WireAddress(host: "127.0.0.1", port: 7000))
        #expect(code.addresses.last?.host == ProcessInfo.processInfo.hostName)
        #expect(code.inviterKey == exchange.membership.nodeKey)
        #expect(exchange.membership.invitations.count == 1)
    }

    @Test func withoutRevocationsEveryOpIsKept() throws {
        let (exchange, _, _) = Self.exchange()
        var replica = Replica(id: ReplicaID(deriving: "ops"))
        try replica.createGallery("g")
        let ops = replica.lastOps(replica.opCount)
        let (kept, refused) = exchange.withoutRevokedAuthors(ops, in: replica)
        #expect(kept == ops && refused == 0)
    }
}

extension Result {
    /// The error, if a failure.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
