import GalleryModel
@testable import GalleryNode
import GalleryWire
import Testing
@testable import GalleryMeshSimulation

/// Transfers on the node's clock and workers: the mesh simulator drives a drag between two real
/// nodes (the transfer manager's passes, the fetches, the chunks' hashing and storing, the
/// commits) on simulated time, so the same seed replays the same transfer, event for event.
@Suite struct TransferSimulationTests {
    /// What a drag did: the trace, how long until the last transfer ended, the placeholders in drop
    /// order and in the order their commits reached the receiver's op log.
    struct Run: Equatable {
        var digest: UInt64
        var filledAt: UInt64
        var dropped: [OpID]
        var filled: [OpID]
    }

    /// Two simulated nodes with blob stores in memory, node 1 dialing node 0; node 0 holds `count`
    /// pictures of `size` random bytes (drawn from `seed`) in gallery "a", node 1 an empty "b".
    static func pair(seed: UInt64, count: Int, size: Int) throws -> (MeshSimulation, SimulatedNode, SimulatedNode, [OpID]) {
        var parameters = MeshParameters()
        parameters.nodes = 2
        parameters.seed = seed
        let simulation = MeshSimulation(parameters)
        for node in simulation.nodes {
            let index = node.index
            let store = SimulatedBlobStore()
            node.configure = { configuration in
                configuration.blobs = store
                configuration.peers = index == 1 ? [SimulatedNetwork.endpoint(of: 0)] : []
            }
            node.start(network: simulation.network, parameters: parameters)
        }
        let scheduler = simulation.scheduler
        scheduler.run(until: 2_000_000_000)
        let (a, b) = (try #require(simulation.nodes[0].node), try #require(simulation.nodes[1].node))
        let store = try #require(a.configuration.blobs as? SimulatedBlobStore)
        // The pictures' bytes: splitmix64 of the seed (any byte pattern would do; distinct per seed).
        var state = seed
        let drafts = (0..<count).map { index in
            let bytes = (0..<size).map { _ in
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                return UInt8(truncatingIfNeeded: mixed ^ (mixed >> 31))
            }
            return ItemDraft(fields: [
                .title: .text("p\(index)"), .contentHash: .text(store.put(bytes)), .byteSize: .integer(Int64(size)),
            ])
        }
        let first = try a.perform { replica in
            _ = try replica.createGallery("a")
            return try replica.insert(drafts, into: "a", at: 0).id
        }
        try b.perform { _ = try $0.createGallery("b") }
        let ids = (0..<count).map { first.advanced(by: $0) }
        scheduler.run(until: scheduler.now + 2_000_000_000)
        #expect(b.read { replica in ids.allSatisfy { replica.item($0) != nil } })
        return (simulation, simulation.nodes[0], simulation.nodes[1], ids)
    }

    /// Drags `count` pictures from node 0 to node 1 and runs until every placeholder filled (at
    /// most 60 simulated seconds).
    static func drag(seed: UInt64, count: Int = 24, size: Int = 150_000) throws -> Run {
        let (simulation, _, receiver, ids) = try pair(seed: seed, count: count, size: size)
        let scheduler = simulation.scheduler
        let node = try #require(receiver.node)
        let drops = try Drop.perform(DragRequest(items: ids.map { .item(.id($0)) }, gallery: "b"), on: node)
        let dropped = drops.compactMap { OpID($0.item) }
        #expect(dropped.count == count)
        #expect(drops.allSatisfy { $0.transfer != nil })
        let started = scheduler.now
        let deadline = started + 60_000_000_000
        let transfers = try #require(node.transfers)
        // Until every commit is durable and every transfer ended.
        while scheduler.now < deadline, !transfers.listings().isEmpty {
            scheduler.run(until: scheduler.now + 10_000_000)
        }
        let filledAt = scheduler.now - started
        // The commits' order in the receiver's op log: the order the placeholders filled.
        let filled = receiver.store.synced.compactMap { op -> OpID? in
            if case .commit(let item) = op.action { item } else { nil }
        }
        #expect(transfers.listings().isEmpty)
        #expect(node.read { replica in dropped.allSatisfy { replica.item($0)?.state == .ready } })
        let store = try #require(node.configuration.blobs as? SimulatedBlobStore)
        #expect(store.blobs.count == count)
        return Run(digest: scheduler.digest, filledAt: filledAt, dropped: dropped, filled: filled)
    }

    @Test("a drag of 24 pictures fills every placeholder on simulated time, in drop order")
    func dragFillsInDropOrder() throws {
        let run = try Self.drag(seed: 7)
        #expect(run.filled == run.dropped)
        // 3.6 MB at the simulated link's 12.5 MB/s: about 0.3 s of simulated time, not none.
        #expect(run.filledAt > 250_000_000 && run.filledAt < 5_000_000_000, "\(run.filledAt) ns")
    }

    @Test("the same seed replays the same transfer, event for event")
    func sameSeedSameTrace() throws {
        let first = try Self.drag(seed: 11)
        let second = try Self.drag(seed: 11)
        #expect(first == second)
        #expect(try Self.drag(seed: 12).digest != first.digest)
    }

    /// The deadline is read from the node's calendar, which the simulation drives: with the
    /// source down, the placeholders are deleted when 5 simulated seconds pass (a transfer on
    /// the system's clock would still wait, the whole run taking milliseconds).
    @Test("a transfer whose source is down times out on simulated time")
    func deadlineOnSimulatedTime() throws {
        let (simulation, source, receiver, ids) = try Self.pair(seed: 3, count: 4, size: 50_000)
        let scheduler = simulation.scheduler
        let node = try #require(receiver.node)
        source.crash(network: simulation.network)
        let request = DragRequest(items: ids.map { .item(.id($0)) }, gallery: "b", timeout: 5)
        let dropped = try Drop.perform(request, on: node).compactMap { OpID($0.item) }
        let transfers = try #require(node.transfers)
        let outcomes = UncheckedBox<[OpID: TransferOutcome]?>(nil)
        transfers.whenEnded(dropped) { outcomes.value = $0 }
        scheduler.run(until: scheduler.now + 4_500_000_000)
        #expect(outcomes.value == nil)
        #expect(node.read { replica in dropped.allSatisfy { replica.item($0)?.state == .placeholder } })
        scheduler.run(until: scheduler.now + 1_500_000_000)
        let ended = try #require(outcomes.value)
        #expect(ended.count == dropped.count)
        #expect(ended.values.allSatisfy { if case .failed(let reason) = $0 { reason.hasPrefix("timed out") } else { false } })
        #expect(node.read { replica in dropped.allSatisfy { replica.item($0)?.isDeleted ?? true } })
    }
}
