import Foundation
import GalleryIO
import GalleryTestSupport
import Testing

/// Membership across real processes (protocol.md, "Membership"): a node joins with an invitation
/// code alone (no secret file, no `--peer`); a code works once and until it expires, and both
/// ends say why when it does not; a revoked node is refused by every member, gets no op made after
/// its revocation, and its later ops, carried by a member that had not heard of it yet, are
/// refused by the others; a member offline during the revocation takes the new key when it comes
/// back.
@Suite("membership across processes", .serialized)
struct MembershipProcessTests {
    /// The code `gallery -C DIR invite` prints.
    private func invite(_ space: NodeSpace, from node: String, _ extra: String...) throws -> String {
        let result = try space.gallery(node, ["invite"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The gallery names node `name` lists.
    private func galleries(_ space: NodeSpace, _ name: String) throws -> [String] {
        try space.gallery(name, "galleries").stdout.split(separator: "\n").map(String.init)
    }

    /// `gallery serve DIR --join CODE` run to its end (a join that is refused exits).
    private func refusedJoin(_ space: NodeSpace, _ name: String, code: String) throws -> GalleryProcess.Result {
        try GalleryProcess.run(["serve", space.directory(name).path, "--name", name, "--listen", "127.0.0.1:0", "--join", code], timeout: 30)
    }

    @Test("A node joins with the code alone, gets the secret (0600) and syncs; members lists both")
    func joinWithCodeAlone() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        let code = try invite(space, from: "alice")
        #expect(code.hasPrefix("gsj1-") && code.count < 160 && !code.contains("\n"), "\(code)")
        try space.start("bob", options: ["--join", code])
        let secret = space.directory("bob").appendingPathComponent("secret")
        #expect(try Data(contentsOf: secret) == Data(contentsOf: space.directory("alice").appendingPathComponent("secret")))
        #expect((try FileManager.default.attributesOfItem(atPath: secret.path)[.posixPermissions] as? Int) == 0o600)
        #expect(try space.waitUntil(timeout: 30) { try galleries(space, "bob").contains("alice") && galleries(space, "alice").contains("bob") },
                "\(space.standardError(of: "bob").suffix(1_500))")
        let members = try space.gallery("bob", "members", "--json")
        let parsed = try JSONSerialization.jsonObject(with: Data(members.stdout.utf8)) as? [[String: Any]]
        let listing = try #require(parsed, "\(members.stdout)")
        #expect(Set(listing.compactMap { $0["name"] as? String }) == ["alice", "bob"])
        let addedBy = listing.first { $0["name"] as? String == "bob" }?["addedBy"] as? String ?? ""
        #expect(addedBy.hasPrefix("alice ["), "\(listing)")
        #expect(try space.waitUntil(timeout: 20) { try space.gallery("alice", "members").stdout.contains("bob") })
        #expect(space.standardError(of: "alice").contains("JOINED: bob"))
    }

    @Test("A code is refused on its second use and once expired, with the reason on both ends")
    func reuseAndExpiryRefused() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        let code = try invite(space, from: "alice")
        try space.start("bob", options: ["--join", code])
        let reused = try refusedJoin(space, "carol", code: code)
        #expect(reused.status == 1, "\(reused.stderr)")
        #expect(reused.stderr.contains("this invitation was used already"), "\(reused.stderr)")
        #expect(space.waitUntil(timeout: 10) { space.standardError(of: "alice").contains("JOIN REFUSED: carol") })
        #expect(!FileManager.default.fileExists(atPath: space.directory("carol").appendingPathComponent("secret").path))

        let short = try invite(space, from: "alice", "--expires", "1")
        let expiry = Date().addingTimeInterval(1.2)
        while Date() < expiry { usleep(50_000) }  // the code's lifetime itself
        let expired = try refusedJoin(space, "dan", code: short)
        #expect(expired.status == 1, "\(expired.stderr)")
        #expect(expired.stderr.contains("this invitation expired"), "\(expired.stderr)")
        #expect(space.waitUntil(timeout: 10) { space.standardError(of: "alice").contains("JOIN REFUSED: dan") })

        // A code changed by one character is refused before any connection: a usage error.
        var characters = Array(code)
        characters[20] = characters[20] == "A" ? "B" : "A"
        let mutated = try refusedJoin(space, "erin", code: String(characters))
        #expect(mutated.status == 64 && mutated.stderr.contains("damaged"), "\(mutated.stderr)")
        #expect(try space.gallery("alice", "members").stdout.split(separator: "\n").count == 2)
    }

    @Test("Revoke: the revoked node is refused, gets no later op, its later ops are refused; an offline member takes the new key")
    func revoke() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alice")
        for name in ["bob", "carol", "dan"] { try space.start(name, options: ["--join", try invite(space, from: "alice")]) }
        #expect(try space.waitUntil(timeout: 30) {
            try ["bob", "carol", "dan"].allSatisfy { try galleries(space, "alice").contains($0) && galleries(space, $0).contains("alice") }
        })
        #expect(space.stop("dan"))

        let revoked = try space.gallery("alice", "revoke", "carol")
        #expect(revoked.status == 0 && revoked.stdout.contains("Revoked carol"), "\(revoked.stdout)\(revoked.stderr)")
        #expect(space.waitUntil(timeout: 20) { space.standardError(of: "bob").contains("took the space key of generation 1") })
        #expect(space.waitUntil(timeout: 20) { space.standardError(of: "carol").contains("was revoked from this space") })
        #expect(try space.gallery("bob", "members").stdout.contains("REVOKED"))
        // Alice no longer dials carol: it is out of her address book.
        #expect(space.standardError(of: "alice").contains("forgot revoked node"))
        #expect(try !space.gallery("alice", "peers").stdout.contains("carol"))
        // Carol redials and is refused; a gallery made after the revocation reaches bob, not carol.
        #expect(space.waitUntil(timeout: 30) { space.standardError(of: "alice").contains("REVOKED node") })
        #expect(try space.gallery("alice", "new-gallery", "after-revocation").status == 0)
        #expect(try space.waitUntil(timeout: 20) { try galleries(space, "bob").contains("after-revocation") })
        // Carol keeps trying (two more refusals) and still has nothing new.
        let refusals = space.standardError(of: "alice").components(separatedBy: "REVOKED node").count
        #expect(space.waitUntil(timeout: 30) { space.standardError(of: "alice").components(separatedBy: "REVOKED node").count >= refusals + 2 })
        #expect(try !galleries(space, "carol").contains("after-revocation"))

        // Carol makes a gallery after its revocation; dan, offline during it, meets carol before
        // any member: it takes carol's op, not knowing.
        #expect(try space.gallery("carol", "new-gallery", "carol-after").status == 0)
        #expect(space.stop("alice"))
        try space.start("dan", peers: ["carol"])
        #expect(try space.waitUntil(timeout: 30) { try galleries(space, "dan").contains("carol-after") }, "\(space.standardError(of: "dan").suffix(1_500))")
        // Alice comes back: dan takes the new key from her (it had the previous one), drops carol,
        // and syncs; alice refuses carol's op that dan passes on.
        try space.start("alice")
        #expect(space.waitUntil(timeout: 60) { space.standardError(of: "dan").contains("took the space key of generation 1") },
                "\(space.standardError(of: "dan").suffix(2_000))")
        #expect(try space.waitUntil(timeout: 60) { try galleries(space, "dan").contains("after-revocation") })
        #expect(space.waitUntil(timeout: 30) { space.standardError(of: "alice").contains("ops of a revoked member") },
                "\(space.standardError(of: "alice").suffix(2_000))")
        #expect(try !galleries(space, "alice").contains("carol-after"))
        #expect(try !galleries(space, "bob").contains("carol-after"))
        #expect(try space.gallery("dan", "members").stdout.contains("REVOKED"))
    }
}
