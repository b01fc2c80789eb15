import GalleryCrypto
import GalleryIO
@testable import GalleryNode
import GalleryModel
import GalleryWire
import Testing

/// Which node a dial expects (`PeerKeyBook.expectedNode`), without a node: the address book's
/// owner first, then the configured pin, then the node that answered there while running.
@Suite struct PeerKeyBookTests {
    private static func peer(_ name: String) -> PeerIdentity {
        PeerIdentity(replica: ReplicaID(UInt64.random(in: 1...UInt64.max)), name: name, version: 1,
                     maximumFrameSize: 1 << 20, key: X25519.PrivateKey().publicKey)
    }

    @Test func aDialExpectsTheBookOwnerThenTheConfiguredPinThenTheLastAnswer() {
        var keys = PeerKeyBook()
        let address = Endpoint(host: "127.0.0.1", port: 4_000)
        #expect(keys.expectedNode(at: address, bookOwner: nil, configured: [:]) == nil, "the first handshake there is trusted")
        #expect(keys.expectedNode(at: nil, bookOwner: nil, configured: [:]) == nil)
        let answered = Self.peer("b")
        #expect(keys.record(answered, dialed: address) == nil)
        #expect(keys.expectedNode(at: address, bookOwner: nil, configured: [:]) == answered.nodeID)
        let configured = Self.peer("c").nodeID
        #expect(keys.expectedNode(at: address, bookOwner: nil, configured: [address: configured]) == configured)
        let owner = Self.peer("d").nodeID
        #expect(keys.expectedNode(at: address, bookOwner: PeerKey(owner), configured: [address: configured]) == owner)
        keys.unpin(node: answered.nodeID, address: nil)
        #expect(keys.expectedNode(at: address, bookOwner: nil, configured: [:]) == nil)
    }

    @Test func aKnownNameUnderAnotherKeyIsAConflict() {
        var keys = PeerKeyBook()
        #expect(keys.record(Self.peer("b"), dialed: nil) == nil)
        let impostor = Self.peer("b")
        let conflict = keys.record(impostor, dialed: nil)
        #expect(conflict?.hasPrefix("node \(impostor.nodeID) calls itself b") == true)
        #expect(keys.conflicts == [conflict])
    }
}
