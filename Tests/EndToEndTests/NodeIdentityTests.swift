import Foundation
import GalleryTestSupport
import Testing

/// Node keys across real processes: made once and kept (mode 0600), a damaged key file reported and
/// kept, node IDs in `status` and `peers`, and an impostor on a node's old port refused by the dialer.
@Suite("node identity", .serialized)
struct NodeIdentityTests {
    /// The node ID `status --json` reports.
    private func nodeID(_ space: NodeSpace, _ node: String) throws -> String? {
        let result = try space.gallery(node, "status", "--json")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return json?["nodeID"] as? String
    }

    /// Starts alpha and beta (dialing alpha), waits until alpha holds beta's gallery, and returns
    /// alpha's node ID.
    private func alphaKnownToBeta(_ space: NodeSpace) throws -> String {
        try space.start("alpha")
        try space.start("beta", peers: ["alpha"])
        #expect(try space.gallery("beta", "add", "https://example.org/secret.png", "--title", "beta's").status == 0)
        #expect(try space.waitUntil(timeout: 20) { try (space.items(on: "alpha", "beta") ?? []).count == 1 }, "alpha never synced")
        return try #require(try nodeID(space, "alpha"))
    }

    @Test("The key is made at the first start with mode 0600 and kept across restarts; status and peers show node IDs")
    func keyKept() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alpha")
        try space.start("beta", peers: ["alpha"])
        #expect(try space.waitUntil(timeout: 20) { try space.items(on: "beta", "alpha") != nil || space.gallery("beta", "peers").stdout.contains("live") })
        let keyFile = space.directory("alpha").appendingPathComponent("node.key")
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((attributes[.size] as? Int) == 73)
        let first = try #require(try nodeID(space, "alpha"))
        #expect(first.count == 16)
        // beta lists alpha under that node ID, in text and JSON.
        #expect(try space.waitUntil(timeout: 20) { try space.gallery("beta", "peers").stdout.contains(first) })
        let peers = try space.gallery("beta", "peers", "--json")
        #expect(peers.stdout.contains("\"nodeID\":\"\(first)\""), "\(peers.stdout)")
        #expect(try space.gallery("beta", "status").stdout.contains("[\(first)]"))
        #expect(space.stop("alpha"))
        try space.start("alpha")
        #expect(try nodeID(space, "alpha") == first)
    }

    @Test("A damaged key file stops the node with a clear message and is left as it was")
    func corruptKeyFile() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("alpha")
        #expect(space.stop("alpha"))
        let keyFile = space.directory("alpha").appendingPathComponent("node.key")
        var bytes = try [UInt8](Data(contentsOf: keyFile))
        bytes[20] ^= 0x01
        try Data(bytes).write(to: keyFile)
        let result = try GalleryProcess.run(["serve", space.directory("alpha").path, "--listen", "127.0.0.1:0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("node.key is corrupt (checksum mismatch)"), "\(result.stderr)")
        #expect(result.stderr.contains("move it away"), "\(result.stderr)")
        #expect(try [UInt8](Data(contentsOf: keyFile)) == bytes, "the damaged key file was replaced")
    }

    @Test("An impostor on a node's old port (same secret, another key) is refused by the node that dialed it before")
    func impostorRefused() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let genuine = try alphaKnownToBeta(space)
        // alpha goes away; a node with the space's secret but another key takes its address.
        #expect(space.stop("alpha"))
        try FileManager.default.removeItem(at: space.directory("alpha"))
        try space.start("alpha")
        let impostor = try #require(try nodeID(space, "alpha"))
        #expect(impostor != genuine)
        let refused = space.waitUntil(timeout: 20) { space.standardError(of: "beta").contains("IDENTITY MISMATCH") }
        #expect(refused, "\(space.standardError(of: "beta").suffix(2_000))")
        #expect(try space.gallery("beta", "status").stdout.contains("identity conflict"))
        // The impostor never gets beta's content.
        #expect(try space.items(on: "alpha", "beta") == nil)
        // beta may name the impostor's key in a refusal (`last error`), never list it as a peer.
        let listed = try space.gallery("beta", "peers").stdout.split(separator: "\n").map { $0.split(separator: "\t") }
        #expect(!listed.contains { $0.count > 1 && $0[1] == impostor }, "\(listed)")
    }

    @Test("The pin outlives the dialer's restart (the address book names the node), and `forget` lifts it")
    func pinKeptAcrossRestart() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let genuine = try alphaKnownToBeta(space)
        // Both stop; beta forgets nothing but what it held in memory; alpha comes back with another
        // key, in the same space (its secret kept: ops are bound to the space they were made in,
        // protocol.md section 7.3, so a new secret would be another space).
        #expect(space.stop("beta"))
        #expect(space.stop("alpha"))
        let secretFile = space.directory("alpha").appendingPathComponent("secret")
        let secret = try Data(contentsOf: secretFile)
        try FileManager.default.removeItem(at: space.directory("alpha"))
        try FileManager.default.createDirectory(at: space.directory("alpha"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try secret.write(to: secretFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
        try space.start("alpha")
        let impostor = try #require(try nodeID(space, "alpha"))
        #expect(impostor != genuine)
        try space.start("beta")
        let refused = space.waitUntil(timeout: 20) { space.standardError(of: "beta").contains("IDENTITY MISMATCH") }
        #expect(refused, "\(space.standardError(of: "beta").suffix(2_000))")
        #expect(space.standardError(of: "beta").contains("expected node \(genuine)"), "\(space.standardError(of: "beta").suffix(2_000))")
        #expect(try space.items(on: "alpha", "beta") == nil, "the node at alpha's address got beta's content")
        // The user says the node was set up anew: beta forgets the old ID and takes the new node.
        #expect(try space.gallery("beta", "forget", genuine).status == 0)
        let address = try #require(space.address("alpha")).description
        #expect(try space.gallery("beta", "connect", address).status == 0)
        #expect(try space.waitUntil(timeout: 20) { try (space.items(on: "alpha", "beta") ?? []).count == 1 },
                "beta never synced with the node it accepted: \(space.standardError(of: "beta").suffix(2_000))")
    }
}
