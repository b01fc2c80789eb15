import Foundation
import GalleryIO
import Testing

/// Peers that find each other again, across real `gallery serve` processes: ports that
/// change, a node that only ever accepted, a whole mesh restarted on new ports, a damaged address
/// book, `forget`. Old ports are held by another socket (`PortHolder`) so the nodes cannot take
/// them back.
@Suite("address book and redial across processes", .serialized)
struct AddressBookProcessTests {
    /// `peers --json` of a node (empty when it cannot be read).
    static func peers(_ space: NodeSpace, _ name: String) -> [[String: Any]] {
        guard let result = try? space.gallery(name, "peers", "--json"), result.status == 0,
              let list = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] else { return [] }
        return list
    }

    /// The peers a node has a live connection with.
    static func live(_ space: NodeSpace, _ name: String) -> Set<String> {
        Set(peers(space, name).filter { $0["state"] as? String == "live" }.compactMap { $0["name"] as? String })
    }

    /// Whether a node's address book lists `peer` at `address`.
    static func knows(_ space: NodeSpace, _ name: String, _ peer: String, at address: Endpoint?) -> Bool {
        peers(space, name).contains { entry in
            entry["name"] as? String == peer
                && ((entry["addresses"] as? [[String: Any]]) ?? []).contains { $0["address"] as? String == address?.description }
        }
    }

    /// The galleries of a node.
    static func galleries(_ space: NodeSpace, _ name: String) -> Set<String> {
        guard let result = try? space.gallery(name, "galleries"), result.status == 0 else { return [] }
        return Set(result.stdout.split(separator: "\n").map(String.init))
    }

    /// Starts nodes with `peers` and waits until each has a live connection to every name in `mesh[node]`.
    static func waitForLinks(_ space: NodeSpace, _ mesh: [String: Set<String>], timeout: TimeInterval = 20) -> Bool {
        space.waitUntil(timeout: timeout) { mesh.allSatisfy { node, others in others.isSubset(of: live(space, node)) } }
    }

    /// Starts a, then b with `--peer a`, and waits until they are linked and a's book holds the
    /// address b announced.
    static func startLinkedPair(_ space: NodeSpace) throws {
        try space.start("a")
        try space.start("b", peers: ["a"])
        #expect(waitForLinks(space, ["a": ["b"], "b": ["a"]]))
        #expect(space.waitUntil(timeout: 10) { knows(space, "a", "b", at: space.address("b")) })
    }

    @Test("A-B-C chain: B restarts on another port (its old one taken); A and C reconnect within 10 s; ops made meanwhile arrive everywhere")
    func chainAfterPortChange() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("b", peers: ["a"])
        try space.start("c", peers: ["b"])
        #expect(Self.waitForLinks(space, ["a": ["b"], "b": ["a", "c"], "c": ["b"]]))
        // B knows where C listens (C announced it), though C dialed B.
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "b", "c", at: space.address("c")) }, "\(Self.peers(space, "b"))")
        let old = try #require(space.address("b"))
        #expect(space.stop("b"))
        let holder = try PortHolder(old)
        defer { holder.close() }
        #expect(try space.gallery("a", "new-gallery", "from-a-meanwhile").status == 0)
        #expect(try space.gallery("c", "new-gallery", "from-c-meanwhile").status == 0)

        let restarted = Date()
        try space.start("b", keepAddress: false)
        #expect(space.address("b") != old)
        #expect(space.standardError(of: "b").contains("port \(old.port) of the last run is taken"))
        #expect(try space.gallery("b", "new-gallery", "from-b-after").status == 0)
        let reconnected = Self.waitForLinks(space, ["a": ["b"], "c": ["b"]], timeout: 10)
        #expect(reconnected, "a: \(Self.peers(space, "a")) c: \(Self.peers(space, "c")) b's log: \(space.standardError(of: "b"))")
        #expect(Date().timeIntervalSince(restarted) < 10.5)
        let wanted: Set = ["from-a-meanwhile", "from-c-meanwhile", "from-b-after"]
        #expect(space.waitUntil(timeout: 10) { ["a", "b", "c"].allSatisfy { wanted.isSubset(of: Self.galleries(space, $0)) } })
        // A's book has B's new address, announced.
        #expect(Self.knows(space, "a", "b", at: space.address("b")))
    }

    @Test("A node that only ever accepted dials its peer itself after a restart on another port")
    func acceptorDials() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try Self.startLinkedPair(space)
        let old = try #require(space.address("a"))
        #expect(space.stop("a"))
        let holder = try PortHolder(old)
        defer { holder.close() }
        try space.start("a", keepAddress: false)
        #expect(space.address("a") != old)
        // B only knows A's old address (held): the link comes back because A dials B.
        let dialed = space.waitUntil(timeout: 10) {
            Self.peers(space, "a").contains { $0["name"] as? String == "b" && $0["direction"] as? String == "outbound" && $0["state"] as? String == "live" }
        }
        #expect(dialed, "a: \(Self.peers(space, "a")) a's log: \(space.standardError(of: "a"))")
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "b", "a", at: space.address("a")) })
    }

    @Test("A mesh of four: all but one restarted at once on new ports (old ones taken); the mesh heals and converges")
    func meshHeals() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        let names = ["a", "b", "c", "d"]
        try space.start("a")
        try space.start("b", peers: ["a"])
        try space.start("c", peers: ["a", "b"])
        try space.start("d", peers: ["a", "b", "c"])
        let mesh = Dictionary(uniqueKeysWithValues: names.map { name in (name, Set(names).subtracting([name])) })
        #expect(Self.waitForLinks(space, mesh))
        #expect(space.waitUntil(timeout: 10) {
            names.allSatisfy { name in names.allSatisfy { $0 == name || Self.knows(space, name, $0, at: space.address($0)) } }
        })
        var holders: [PortHolder] = []
        defer { for holder in holders { holder.close() } }
        for name in ["b", "c", "d"] {
            let old = try #require(space.address(name))
            #expect(space.stop(name))
            holders.append(try PortHolder(old))
        }
        // Restarted with --peer a only (the one address that still holds): the others' new
        // addresses reach them through a, which gossips what they announce.
        for name in ["b", "c", "d"] { try space.start(name, peers: ["a"], keepAddress: false) }
        for name in names { #expect(try space.gallery(name, "new-gallery", "after-\(name)").status == 0) }
        let healed = Self.waitForLinks(space, mesh, timeout: 30)
        #expect(healed, "\(names.map { "\($0): \(Self.live(space, $0))" })")
        let wanted = Set(names.map { "after-\($0)" })
        #expect(space.waitUntil(timeout: 10) { names.allSatisfy { wanted.isSubset(of: Self.galleries(space, $0)) } })
    }

    @Test("A damaged address book (cut or a byte changed): the node starts, says so, and rebuilds it from --peer and its peers",
          arguments: ["cut", "flipped"])
    func damagedBook(damage: String) throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try Self.startLinkedPair(space)
        #expect(space.stop("b"))
        #expect(space.stop("a"))
        for name in ["a", "b"] {
            let file = space.directory(name).appendingPathComponent("peers")
            var bytes = try Array(Data(contentsOf: file))
            if damage == "cut" { bytes.removeLast(bytes.count / 2) } else { bytes[bytes.count - 3] ^= 0x01 }
            try Data(bytes).write(to: file)
        }
        try space.start("a")
        try space.start("b")
        for name in ["a", "b"] {
            #expect(space.standardError(of: name).contains("is damaged"), "\(name): \(space.standardError(of: name))")
        }
        // b rebuilds from --peer a; a from b's connection and announcement.
        #expect(Self.waitForLinks(space, ["a": ["b"], "b": ["a"]]))
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "a", "b", at: space.address("b")) })
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "b", "a", at: space.address("a")) })
        // The rebuilt book is stored whole: a restart finds no damage.
        #expect(space.stop("a"))
        try space.start("a")
        #expect(!space.standardError(of: "a").contains("is damaged"), "\(space.standardError(of: "a"))")
        #expect(Self.knows(space, "a", "b", at: space.address("b")))
    }

    @Test("kill -9 while peers come and go leaves a whole book: the node restarts without damage and redials from it")
    func killNine() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("b", peers: ["a"])
        try space.start("c", peers: ["a"])
        #expect(Self.waitForLinks(space, ["a": ["b", "c"]]))
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "a", "c", at: space.address("c")) })
        for round in 0..<3 {
            // c's link flaps (a rewrites its book) while a is killed.
            #expect(try space.gallery("c", "disconnect", "a").status == 0)
            space.kill("a")
            try space.start("a")
            #expect(!space.standardError(of: "a").contains("is damaged"), "round \(round): \(space.standardError(of: "a"))")
            #expect(Self.waitForLinks(space, ["a": ["b", "c"]]), "round \(round)")
        }
    }

    @Test("forget: the peer leaves the book and is dialed no more; forgetting it again fails")
    func forgetStopsDialing() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try Self.startLinkedPair(space)
        let old = try #require(space.address("b"))
        #expect(space.stop("b"))
        let holder = try PortHolder(old)
        defer { holder.close() }
        // A redials B (the holder sees the attempts), and says so in peers.
        #expect(space.waitUntil(timeout: 10) { holder.count >= 2 }, "\(holder.count)")
        let entry = Self.peers(space, "a").first { $0["name"] as? String == "b" }
        #expect(entry?["state"] as? String == "disconnected")
        #expect(entry?["lastError"] != nil || entry?["nextRetry"] != nil, "\(String(describing: entry))")
        let line = try space.gallery("a", "peers").stdout.split(separator: "\n").first { $0.hasPrefix("b\t") }
        #expect(line?.hasSuffix("\t\(old)\t-\tdisconnected") == true || line?.contains("\t\(old)\t-\tdisconnected\t") == true,
                "\(String(describing: line))")

        #expect(try space.gallery("a", "forget", "b").status == 0)
        #expect(Self.peers(space, "a").isEmpty)
        let forgotten = try space.gallery("a", "forget", "b")
        #expect(forgotten.status == 1 && forgotten.stderr.contains("no peer or address"), "\(forgotten.stderr)")
        // An attempt under way at the forget may still land; none after it (the backoff is at most 5 s).
        usleep(500_000)
        let settled = holder.count
        usleep(6_000_000)
        #expect(holder.count == settled, "a dialed b \(holder.count - settled) times after forget")
        // Forgotten across a restart too; without --listen, a takes its port of the last run again.
        let previous = space.address("a")
        #expect(space.stop("a"))
        try space.start("a", keepAddress: false)
        #expect(space.address("a") == previous)
        #expect(Self.peers(space, "a").isEmpty)
    }

    @Test("connect adds the address to the book; status --json shows the sync state of an inbound live peer")
    func connectAndStatus() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a")
        try space.start("b")
        let address = try #require(space.address("a")).description
        #expect(try space.gallery("b", "connect", address).status == 0)
        #expect(Self.waitForLinks(space, ["a": ["b"], "b": ["a"]]))
        let source = Self.peers(space, "b").first { $0["name"] as? String == "a" }?["addresses"] as? [[String: Any]]
        #expect(source?.first { $0["address"] as? String == address }?["source"] as? String == "connect")
        // a's peer b is inbound: its sync state is there once live.
        #expect(space.waitUntil(timeout: 10) {
            guard let result = try? space.gallery("a", "status", "--json"),
                  let status = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
                  let peers = status["peers"] as? [[String: Any]] else { return false }
            return peers.contains { $0["direction"] as? String == "inbound" && $0["syncedUpTo"] is [String: Any] }
        })
        // The relay tree of two nodes: the older (a) is its root, b hangs from it (`peers`, `status`).
        #expect(space.waitUntil(timeout: 10) {
            Self.peers(space, "b").first { $0["name"] as? String == "a" }?["relay"] as? String == "parent"
                && Self.peers(space, "a").first { $0["name"] as? String == "b" }?["relay"] as? String == "child"
        }, "\(Self.peers(space, "a")) \(Self.peers(space, "b"))")
        let status = try JSONSerialization.jsonObject(with: Data(try space.gallery("b", "status", "--json").stdout.utf8)) as? [String: Any]
        #expect(status?["treeHops"] as? Int == 1)
        #expect(try space.gallery("a", "status").stdout.contains("relay tree: this node is the root"))
        #expect(try space.gallery("b", "peers").stdout.split(separator: "\n").contains { $0.hasSuffix("\tparent") })
    }

    @Test("--announce: peers learn the address given instead of the bound one; with none they learn nothing")
    func announceOverride() throws {
        let space = NodeSpace()
        defer { space.tearDown() }
        try space.start("a", options: ["--announce", "127.0.0.1:9"])
        try space.start("b", peers: ["a"], options: ["--announce", "none"])
        #expect(space.waitUntil(timeout: 10) { Self.knows(space, "b", "a", at: Endpoint("127.0.0.1:9")) },
                "\(Self.peers(space, "b"))")
        // a knows b as connected, but at no address: b announced none (an inbound peer's own port is never recorded).
        #expect(space.waitUntil(timeout: 10) { Self.peers(space, "a").contains { $0["name"] as? String == "b" } })
        let entry = Self.peers(space, "a").first { $0["name"] as? String == "b" }
        let known = entry?["addresses"] as? [[String: Any]] ?? []
        #expect(known.isEmpty, "\(String(describing: entry))")
    }
}
