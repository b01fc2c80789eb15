import Foundation
import GalleryModel
import GalleryWire
import Testing

extension NodeSuites {
    /// Ops outside `FieldLimits` over real TCP: a peer that sends one is refused with `rejected_op`
    /// and nothing of it is applied, while the node keeps syncing with its good peer; and a run too
    /// large for one op reaches a peer that declared the smallest frame limit, in chained ops.
    @Suite("Op bounds over TCP")
    struct OpBoundsTests {
        @Test("A peer sending an op over a bound (a 1,025-byte title, 4,097 items, 65 KB) is refused with rejected_op; B keeps syncing")
        func overBoundOpIsRefused() throws {
            let cluster = try TestCluster(["alpha", "beta"], peers: [1: [0]])
            defer { cluster.stop() }
            let a = cluster.nodes[0]
            let endpoint = try #require(a.endpoint)
            try a.perform { try $0.createGallery("g") }
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))
            let existing = try a.perform { try $0.insert([.titled("kept")], into: "g", at: 0) }.id
            try #require(cluster.waitForConvergence(timeout: .seconds(10)))

            let insider = ReplicaID(0xB0_0005)
            func insert(_ drafts: [ItemDraft]) -> Op {
                Op(id: OpID(counter: 1, replica: insider), previous: 0,
                   action: .insert(gallery: "g", after: nil, before: existing, items: drafts))
            }
            let attacks: [(String, Op)] = [
                ("title of 1,025 bytes", insert([.titled(String(repeating: "x", count: 1_025))])),
                ("update to a 8,193-byte url", Op(id: OpID(counter: 1, replica: insider), previous: 0,
                                                  action: .update(item: existing, field: .url, value: .text(String(repeating: "u", count: 8_193))))),
                ("aspect ratio 0", Op(id: OpID(counter: 1, replica: insider), previous: 0,
                                      action: .update(item: existing, field: .aspectRatio, value: .number(0)))),
                ("4,097 items", insert(Array(repeating: ItemDraft(), count: 4_097))),
                ("an op of 65 KB", insert(Array(repeating: .titled(String(repeating: "y", count: 1_000)), count: 65))),
            ]
            for (index, (name, op)) in attacks.enumerated() {
                let before = a.read { $0.version }
                let replica = ReplicaID(insider.rawValue + UInt64(index) + 1)
                let settings = AdversarialPeerTests.settings("insider", replica: replica)
                let talk = try AdversarialPeerTests.converse(name, endpoint) { peer in
                    guard peer.authenticate(settings) else { return }
                    peer.send(Message.ops([op]))
                }
                #expect(talk.end.isClosedByPeer, "\(name): \(talk.end)")
                #expect(AdversarialPeerTests.errorCode(talk.frames.last) == .rejectedOp,
                        "\(name): \(AdversarialPeerTests.describe(talk.frames))")
                #expect(a.read { $0.version } == before, "\(name): A applied something")
                AdversarialPeerTests.expectServing(cluster, label: name, round: index)
            }
            #expect(a.read { $0.item(existing)?.url } == nil)
        }

        @Test("A drop of 5,000 items (about 300 KB of ops) reaches a peer that declared max_frame 65,536, in chained ops, as one run")
        func largeRunReachesSmallestFramePeer() throws {
            let lines = LogLines()
            let small = try BroadcastTests.makeNode("small", lines: lines, maximumFrameSize: FrameLimits.minimum)
            let big = try BroadcastTests.makeNode("big", lines: lines)
            defer { small.stop(); big.stop() }
            try big.perform { replica in
                try replica.createGallery("g")
                try replica.insert([.titled("first"), .titled("last")], into: "g", at: 0)
            }
            try small.connect(to: #require(big.endpoint))
            #expect(small.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            #expect(big.waitForPeers(timeout: .seconds(5)) { $0.first?.state == .live })
            let titles = (0..<5_000).map { "https://example.org/gallery/photo-\($0).jpeg" }
            let drafts = titles.map { ItemDraft(fields: [.title: .text($0), .url: .text($0)]) }
            let ops = try big.perform { try $0.insertRun(drafts, into: "g", at: 1) }
            #expect(ops.count >= 5, "\(ops.count) ops")
            #expect(ops.allSatisfy { OpCodec.encodedSize(of: $0) <= FieldLimits.maxEncodedOpSize })
            let target = big.read { $0.version }
            #expect(small.wait(timeout: .seconds(10)) { $0.version.includes(target) },
                    "log: \(lines.all.filter { $0.contains("closed") })")
            let shown = try small.read { try $0.items(in: "g").map { $0.title ?? "" } }
            #expect(shown == ["first"] + titles + ["last"])
            #expect(lines.all.filter { $0.contains("frame_too_large") || $0.contains("rejected") }.isEmpty)
        }
    }
}
