import GalleryModel
@testable import GalleryNode
import Testing
@testable import GalleryMeshSimulation

/// The relay tree on simulated nodes (protocol.md, section 11): one root for the mesh, ops that
/// keep reaching every node while the root is gone, a new root once it is given up, and a root
/// that comes back in time keeping its place.
@Suite struct RelayTreeSimulationTests {
    /// Twelve nodes of the random topology (or `nodes` of `topology`), all started, run until
    /// their tree has formed.
    static func mesh(nodes: Int = 12, topology: MeshTopology = .random) -> MeshSimulation {
        var parameters = MeshParameters()
        parameters.seed = 5
        parameters.nodes = nodes
        parameters.topology = topology
        let simulation = MeshSimulation(parameters)
        for node in simulation.nodes { node.start(network: simulation.network, parameters: parameters) }
        simulation.scheduler.run(until: 3_000_000_000)
        return simulation
    }

    /// Each running node's tree.
    static func trees(_ simulation: MeshSimulation) -> [Int: RelayTree] {
        var trees: [Int: RelayTree] = [:]
        for node in simulation.nodes {
            guard let running = node.node else { continue }
            trees[node.index] = running.loop.sync { running.relayTree }
        }
        return trees
    }

    /// The index of the node that every running node follows, nil when they disagree.
    static func root(_ simulation: MeshSimulation) -> Int? {
        let roots = Set(trees(simulation).values.map { TreeKey(root: $0.root, since: $0.since) })
        guard roots.count == 1, let root = roots.first else { return nil }
        return simulation.nodes.firstIndex { $0.replicaID == root.root }
    }

    struct TreeKey: Hashable {
        var root: ReplicaID
        var since: UInt64
    }

    /// Makes an op at `node` and runs for `within`; whether every running node then holds it.
    static func opReachesEveryone(from node: SyncNode, in simulation: MeshSimulation, within: UInt64, label: String) throws -> Bool {
        if !node.read({ $0.hasGallery("g") }) { try node.perform { _ = try $0.createGallery("g") } }
        try node.perform { _ = try $0.insert([.titled(label)], into: "g", at: 0) }
        let made = node.read { $0.version }
        simulation.scheduler.run(until: simulation.scheduler.now + within)
        return simulation.nodes.compactMap(\.node).allSatisfy { $0.read { $0.version.includes(made) } }
    }

    @Test func rootGoneOpsStillFlowThenANewRootIsTaken() throws {
        let simulation = Self.mesh()
        let root = try #require(Self.root(simulation), "one root after the first rounds")
        let trees = Self.trees(simulation)
        #expect(trees.values.filter(\.isRoot).count == 1)
        #expect(trees.values.allSatisfy { $0.isRoot || $0.parent != nil }, "every other node has a parent")
        let editor = try #require(simulation.nodes[(root + 1) % 12].node)
        #expect(try Self.opReachesEveryone(from: editor, in: simulation, within: 500_000_000, label: "before"))

        simulation.nodes[root].crash(network: simulation.network)
        // While the root is gone (given up after three beacon intervals, 30 s), the nodes it
        // connected take other parents or graft around it: each op reaches everyone within 3 s.
        for second in stride(from: 2, through: 26, by: 8) {
            simulation.scheduler.run(until: simulation.scheduler.now + 5_000_000_000)
            #expect(try Self.opReachesEveryone(from: editor, in: simulation, within: 3_000_000_000, label: "gone \(second)"),
                    "an op made \(second) s after the root crashed")
        }
        simulation.scheduler.run(until: simulation.scheduler.now + 10_000_000_000)
        let successor = try #require(Self.root(simulation), "one new root")
        #expect(successor != root)

        // The old root comes back: younger now, it follows the new one.
        simulation.nodes[root].start(network: simulation.network, parameters: simulation.parameters)
        simulation.scheduler.run(until: simulation.scheduler.now + 3_000_000_000)
        #expect(Self.root(simulation) == successor)
        #expect(try Self.opReachesEveryone(from: editor, in: simulation, within: 1_000_000_000, label: "after"))
    }

    @Test func rootBackInTimeKeepsItsPlace() throws {
        let simulation = Self.mesh()
        let root = try #require(Self.root(simulation))
        let before = try #require(Self.trees(simulation)[root])
        simulation.nodes[root].crash(network: simulation.network)
        simulation.scheduler.run(until: simulation.scheduler.now + 2_000_000_000)
        simulation.nodes[root].start(network: simulation.network, parameters: simulation.parameters)
        simulation.scheduler.run(until: simulation.scheduler.now + 3_000_000_000)
        // The mesh still followed it: it took its `since` back, with a later round.
        #expect(Self.root(simulation) == root)
        let after = try #require(Self.trees(simulation)[root])
        #expect(after.isRoot && after.since == before.since && after.round > before.round)
        let editor = try #require(simulation.nodes[(root + 5) % 12].node)
        #expect(try Self.opReachesEveryone(from: editor, in: simulation, within: 1_000_000_000, label: "back"))
    }

    @Test func orphanIsHealedByAGraft() throws {
        // A ring of five: the root's neighbours hang from it, the two nodes opposite from them.
        let simulation = Self.mesh(nodes: 5, topology: .ring)
        let root = try #require(Self.root(simulation))
        let (near, orphan) = ((root + 1) % 5, (root + 2) % 5)
        #expect(Self.trees(simulation)[orphan]?.parent != nil && Self.trees(simulation)[orphan]?.hops == 2)
        simulation.nodes[near].crash(network: simulation.network)
        simulation.scheduler.run(until: simulation.scheduler.now + 500_000_000)
        // Its only other neighbour is as far from the root as itself: no other parent until the
        // next round (at 10 s); the neighbour's total, above its own, brings a graft first.
        let orphanTree = try #require(Self.trees(simulation)[orphan])
        #expect(orphanTree.parent == nil && !orphanTree.isRoot)
        let origin = try #require(simulation.nodes[root].node)
        let grafts = try #require(simulation.nodes[orphan].node).relayCounts.graftsSent
        #expect(try Self.opReachesEveryone(from: origin, in: simulation, within: 2_500_000_000, label: "to the orphan"))
        #expect(try #require(simulation.nodes[orphan].node).relayCounts.graftsSent > grafts)
    }
}
