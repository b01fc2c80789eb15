import Foundation
import GalleryCrypto
import GalleryIO
import GalleryModel
import GalleryTestSupport
import GalleryWire
import Testing

/// Signed ops across `gallery serve` processes (protocol.md section 7.3): a member that forges an
/// op under another member's replica is refused with `forged_op`, and the forgery goes nowhere.
@Suite("Signed ops across processes", .serialized)
struct SignedOpsProcessTests {
    @Test("alice <- bob <- carol: mallory's op under alice's replica is refused by bob with forged_op; carol never sees it")
    func forgedAcrossProcesses() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        try space.start("bob", peers: ["alice"])
        try space.start("carol", peers: ["bob"])
        #expect(try space.gallery("alice", "add", "https://example.org/one.png", "--aspect", "1.5", "--title", "real").status == 0)
        #expect(try space.waitUntil { try space.column("title", on: "carol", "alice") == ["real"] })
        let status = try space.gallery("bob", "status", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let aliceStatus = try JSONSerialization.jsonObject(with: Data(try space.gallery("alice", "status", "--json").stdout.utf8)) as? [String: Any]
        let aliceText = try #require(aliceStatus?["replica"] as? String)
        let alice = try #require(ReplicaID(aliceText))
        let version = try #require(object["version"] as? [String: Any])
        let last = try #require((version[alice.description] as? NSNumber)?.uint64Value)
        let itemText = try #require(try space.items(on: "bob", "alice")?.first?["id"] as? String)
        let parts = itemText.split(separator: "@")
        let item = OpID(counter: try #require(UInt64(parts[0])), replica: try #require(ReplicaID(parts[1])))

        // The next op of alice's chain, signed with another key.
        var forged = Op(id: OpID(counter: last + 10, replica: alice), previous: last,
                        action: .update(item: item, field: .title, value: .text("forged")))
        forged.seal = OpSeal(signature: Ed25519.PrivateKey().signature(for: Array("anything".utf8)))
        let secret = try Array(Data(contentsOf: space.directory("alice").appendingPathComponent("secret")))
        var mallory = try RawPeer(connectingTo: try #require(space.address("bob")), secret: secret)
        defer { mallory.streams.close() }
        mallory.send(.ops([forged]))
        var code: ErrorCode?
        while let message = try mallory.receiveOrEnd() {
            if case .error(let received, _) = message {
                code = received
                break
            }
        }
        #expect(code == .forgedOp)
        #expect(space.waitUntil(timeout: 10) { space.standardError(of: "bob").contains("FORGED OP \(forged.id)") })
        // alice's next real op reaches carol through bob; the forgery never did.
        #expect(try space.gallery("alice", "update", itemText, "--title", "real again").status == 0)
        #expect(try space.waitUntil { try space.column("title", on: "carol", "alice") == ["real again"] })
        for node in ["alice", "bob", "carol"] { #expect(!space.standardError(of: node).contains("forged\"")) }
    }
}
