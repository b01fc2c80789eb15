import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryNode
import GalleryWire
import Synchronization
import Testing

/// The membership a node holds (protocol.md, "Membership"): single-use invitations, which
/// records are taken, and which space key wins.
@Suite("membership")
struct MembershipTests {
    private func membership(secret: [UInt8] = Array("space".utf8), key: X25519.PrivateKey = X25519.PrivateKey()) -> Membership {
        Membership(keys: SpaceKeys(secret: secret, generation: 0, previous: nil, space: OpSigning.spaceID(ofSecret: secret)),
                   records: [], invitations: [], staticKey: key, store: nil)
    }

    @Test("An invitation is used once, and not after it expires; the refusal says which")
    func singleUse() throws {
        let node = membership()
        let invitation = try node.invite(seconds: 600, now: 1_000_000)
        let first = NodeID(key: X25519.PrivateKey().publicKey), second = NodeID(key: X25519.PrivateKey().publicKey)
        #expect(node.check(invitation: invitation.id, now: 1_000_001) == nil)
        #expect(try node.redeem(invitation: invitation.id, by: first, now: 1_000_002) == nil)
        #expect(try node.redeem(invitation: invitation.id, by: second, now: 1_000_003) == .used(by: first.rawValue, at: 1_000_002))
        let short = try node.invite(seconds: 1, now: 2_000_000)
        #expect(try node.redeem(invitation: short.id, by: second, now: 2_001_000) == .expired(at: 2_001_000))
        #expect(node.check(invitation: "0000", now: 0) == .unknown)
        // Both are still offered to handshakes, so that their reuse is told apart from a wrong key.
        #expect(node.acceptedKeys.count == 3)
    }

    @Test("Records: a self-registration and a member's record are taken; a forged or an outsider's is not")
    func records() {
        let alice = X25519.PrivateKey(), bob = X25519.PrivateKey(), mallory = X25519.PrivateKey()
        let aliceSigning = OpSigning.signingKey(fromNodeKey: alice)
        let node = membership(key: alice)
        node.registerSelf(name: "alice", now: 1)
        #expect(node.isMember(nodeKey: alice.publicKey.rawRepresentation))
        let bobRecord = MemberRecord(kind: .added, nodeKey: bob.publicKey.rawRepresentation,
                                     signingKey: OpSigning.signingKey(fromNodeKey: bob).publicKey.rawRepresentation, name: "bob", at: 2)
            .signed(by: aliceSigning)
        var forged = bobRecord
        forged.name = "bobby"
        #expect(node.merge([forged]).isEmpty)
        let outsider = MemberRecord(kind: .added, nodeKey: mallory.publicKey.rawRepresentation, signingKey: Array(repeating: 1, count: 32),
                                    name: "mallory", at: 3).signed(by: OpSigning.signingKey(fromNodeKey: bob))
        // Signed by bob before bob is a member: refused; in the same batch as bob's record: taken.
        #expect(node.merge([outsider]).isEmpty)
        #expect(node.merge([outsider, bobRecord]).count == 2)
        #expect(node.listing.map(\.name) == ["alice", "bob", "mallory"])
        // A revoked member's records are refused from then on.
        let revocation = MemberRecord(kind: .revoked, nodeKey: bob.publicKey.rawRepresentation, signingKey: bobRecord.signingKey,
                                      name: "bob", at: 4, cutoffs: [ReplicaID(9): 12]).signed(by: aliceSigning)
        #expect(node.merge([revocation]).count == 1)
        #expect(node.isRevoked(nodeKey: bob.publicKey.rawRepresentation) && !node.isMember(nodeKey: bob.publicKey.rawRepresentation))
        #expect(node.cutoffs(ofSigningKey: bobRecord.signingKey) == [ReplicaID(9): 12])
        let late = MemberRecord(kind: .added, nodeKey: X25519.PrivateKey().publicKey.rawRepresentation, signingKey: Array(repeating: 2, count: 32),
                                name: "late", at: 5).signed(by: OpSigning.signingKey(fromNodeKey: bob))
        #expect(node.merge([late]).isEmpty)
        #expect(node.listing.first { $0.name == "bob" }?.revoked == 4)
    }

    @Test("Records cross the wire unchanged in a membership frame")
    func recordsOnTheWire() throws {
        let key = X25519.PrivateKey()
        let record = MemberRecord(kind: .revoked, nodeKey: key.publicKey.rawRepresentation, signingKey: Array(repeating: 3, count: 32),
                                  name: "carol", at: 77, cutoffs: [ReplicaID(5): 6, ReplicaID(1): 2]).signed(by: OpSigning.signingKey(fromNodeKey: key))
        let message = Message.membership(.records([record]))
        #expect(try Message(frame: message.frame) == message)
        #expect(message.frame.flags & Frame.ignorableFlag != 0)
        let grant = Message.membership(.joinGrant(secret: [1, 2, 3], generation: 4, space: Array(0..<16), records: [record]))
        #expect(try Message(frame: grant.frame) == grant)
    }

    @Test("A later key generation replaces the current one; of two at one generation, both nodes keep the same")
    func keyAdoption() throws {
        let a = membership(), b = membership()
        #expect(try a.adopt(secret: [9], generation: 1))
        #expect(try !a.adopt(secret: [8], generation: 0))
        #expect(a.keys.previous == Array("space".utf8))
        #expect(try b.adopt(secret: [7], generation: 1))
        // Each hears of the other's: they end with the same.
        _ = try a.adopt(secret: b.keys.secret, generation: 1)
        _ = try b.adopt(secret: a.keys.secret, generation: 1)
        #expect(a.keys.secret == b.keys.secret)
        #expect(a.keys.space == OpSigning.spaceID(ofSecret: Array("space".utf8)), "the space ID survives the key")
    }
}

/// The newcomer's side against inviters that do not behave.
@Suite("join client")
struct JoinClientTests {
    @Test("An inviter that accepts and never answers is given up after the deadline, with a clear error")
    func silentInviter() throws {
        let listener = try Listener(Endpoint(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let held = Mutex<StreamPair?>(nil)
        Thread.detachNewThread { held.withLock { $0 = try? listener.accept() } }
        defer { held.withLock { $0?.close() } }
        let code = InvitationCode(secret: Array(repeating: 1, count: 16), inviterKey: X25519.PrivateKey().publicKey.rawRepresentation,
                                  space: Array(repeating: 2, count: 16), expires: UInt32.max,
                                  addresses: [WireAddress(host: "127.0.0.1", port: listener.endpoint.port)])
        let started = Date()
        #expect {
            _ = try JoinClient.join(code: code, staticKey: X25519.PrivateKey(), name: "newcomer", deadline: 0.5)
        } throws: { error in
            "\(error.localizedDescription)".contains("no answer from the inviter")
        }
        #expect(Date().timeIntervalSince(started) < 15)
    }

    @Test("A node at the code's address with another key is refused before the newcomer proves anything")
    func wrongInviter() throws {
        // A real node with a fresh key; the code names another key.
        let node = SyncNode(configuration: NodeConfiguration(name: "other", secret: Array("s".utf8), log: NodeLog { _ in }),
                            replica: Replica(id: ReplicaID(7)))
        let endpoint = try #require(try node.start())
        defer { node.stop() }
        let code = InvitationCode(secret: Array(repeating: 1, count: 16), inviterKey: X25519.PrivateKey().publicKey.rawRepresentation,
                                  space: Array(repeating: 2, count: 16), expires: UInt32.max,
                                  addresses: [WireAddress(host: "127.0.0.1", port: endpoint.port)])
        #expect {
            _ = try JoinClient.join(code: code, staticKey: X25519.PrivateKey(), name: "newcomer", deadline: 10)
        } throws: { error in
            "\(error.localizedDescription)".contains("not the inviter")
        }
    }
}
