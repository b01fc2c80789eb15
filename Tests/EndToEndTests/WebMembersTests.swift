import Foundation
import GalleryTestSupport
import Testing

/// Members over the web (http-api.md, "Members"): the page's Invite gives a code a node joins
/// with; Members lists it; Revoke removes it, and the answers of bad requests change nothing.
@Suite("web adapter: invite, members, revoke across processes", .serialized)
struct WebMembersTests {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-web-members-\(UUID().uuidString)")

    @Test("POST /api/invite gives a code a node joins with; GET /api/members lists it; POST /api/members/revoke revokes it")
    func inviteListRevoke() throws {
        defer { try? FileManager.default.removeItem(at: base) }
        let node = try WebNode("alice", base: base)
        defer { node.stop() }
        let invited = try node.post("/api/invite", ["expires": 120])
        #expect(invited.status == 201, "\(invited.text)")
        let code = try #require(invited.json["code"] as? String)
        #expect(code.hasPrefix("gsj1-"))
        let expires = try #require(invited.json["expires"] as? Double)
        #expect(abs(expires / 1_000 - Date().addingTimeInterval(120).timeIntervalSince1970) < 30)

        let bob = try ServeProcess([base.appendingPathComponent("bob").path, "--name", "bob", "--listen", "127.0.0.1:0", "--join", code])
        defer { bob.stop() }
        #expect(bob.endpoint != nil, "\(bob.standardError)")
        let listed = try node.get("/api/members")
        #expect(listed.status == 200)
        let members = try #require(listed.json["members"] as? [[String: Any]])
        #expect(Set(members.compactMap { $0["name"] as? String }) == ["alice", "bob"], "\(members)")
        #expect(members.first { $0["name"] as? String == "alice" }?["isSelf"] as? Bool == true)

        // Refusals: a bad expiry, an unknown member, the node itself; nothing changes.
        #expect(try node.post("/api/invite", ["expires": 0]).status == 400)
        #expect(try node.post("/api/members/revoke", ["node": "nobody"]).status == 404)
        #expect(try node.post("/api/members/revoke", ["node": "alice"]).status == 409)
        let revoked = try node.post("/api/members/revoke", ["node": "bob"])
        #expect(revoked.status == 200, "\(revoked.text)")
        #expect((revoked.json["revoked"] as? [String: Any])?["revoked"] is Double)
        let after = try #require(try node.get("/api/members").json["members"] as? [[String: Any]])
        #expect(after.first { $0["name"] as? String == "bob" }?["revoked"] is Double)
        #expect(after.first { $0["name"] as? String == "alice" }?["revoked"] is NSNull)
        #expect(try node.gallery("members").stdout.contains("REVOKED"))
    }
}
